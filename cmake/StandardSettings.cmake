# Warnings and sanitizers as INTERFACE targets (after ccache's cmake/StandardWarnings.cmake).
add_library(sm120check_warnings INTERFACE)
target_compile_options(sm120check_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(SM120CHECK_WERROR)
  target_compile_options(sm120check_warnings INTERFACE -Werror)
endif()

add_library(sm120check_sanitizers INTERFACE)
if(SM120CHECK_ENABLE_ASAN)
  target_compile_options(sm120check_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(sm120check_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
