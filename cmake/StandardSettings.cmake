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
if(SM120CHECK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SM120CHECK_FUZZ needs clang (libFuzzer): -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Coverage for libFuzzer in every object; the fuzz binaries link the fuzzer's main
  # (tests/fuzz/CMakeLists.txt). clang links its sanitizer runtimes statically.
  target_compile_options(sm120check_sanitizers INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  target_link_options(sm120check_sanitizers INTERFACE -fsanitize=address,undefined)
elseif(SM120CHECK_ENABLE_ASAN)
  target_compile_options(sm120check_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(sm120check_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
