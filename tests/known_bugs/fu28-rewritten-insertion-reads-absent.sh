#!/bin/bash
# False absent (new-user review fu28, session 27; seen on bitsandbytes db90effe's CMakeLists.txt
# hunk 2 at its HEAD, and flashinfer 01e3179ab's workflow lists): a pure insertion (an
# architecture block for toolkit 12.8) whose leading context changed since and whose block was
# rewritten in place (other list, other comment) reads "change absent: its context stands
# where it belongs without its added lines", because the context's trivial lines (endif() endif() blank) and the
# trailing line still meet. The fix is in, rewritten: unknown is the honest answer. git: neither
# direction applies. Synthetic inputs (no fetched code).
B=${1:?binary}; B=$(readlink -f "$B")
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; cd "$d" || exit 2
mkdir -p base t
cat > base/CMakeLists.txt <<'X'
project(demo)

if(BUILD_GPU)
    if(CMAKE_VERSION VERSION_LESS "3.23.0")
        set(ARCH_LIST 70 75 80)
        if(TOOLKIT_VERSION VERSION_GREATER_EQUAL "11.8")
            list(APPEND ARCH_LIST 86 90)
            list(APPEND ARCH_MAJOR 90)
        endif()
    endif()

    string(APPEND GPU_FLAGS " --fast")
endif()
X
cat > t/CMakeLists.txt <<'X'
project(demo)

if(BUILD_GPU)
    if(CMAKE_VERSION VERSION_LESS "3.23.0")
        if(TOOLKIT_VERSION VERSION_GREATER_EQUAL "13.0")
            list(APPEND ARCH_LIST 75 80 86 89 90 100 110 120 121)
        else()
            set(ARCH_LIST 70 75 80 86 89 90)
            set(ARCH_MAJOR 70 80 90)

            # Toolkit 12.8 brings Blackwell.
            if(TOOLKIT_VERSION VERSION_GREATER_EQUAL "12.8")
                list(APPEND ARCH_LIST 100 101 120 121)
                list(APPEND ARCH_MAJOR 100 120)
            endif()
        endif()
    endif()

    string(APPEND GPU_FLAGS " --fast")
endif()
X
cat > p.patch <<'X'
diff --git a/CMakeLists.txt b/CMakeLists.txt
--- a/CMakeLists.txt
+++ b/CMakeLists.txt
@@ -5,6 +5,11 @@ if(BUILD_GPU)
             list(APPEND ARCH_LIST 86 90)
             list(APPEND ARCH_MAJOR 90)
         endif()
+        # Toolkit 12.8 brings the RTX 50 parts.
+        if (TOOLKIT_VERSION VERSION_GREATER_EQUAL "12.8")
+            list(APPEND ARCH_LIST 100 120)
+            list(APPEND ARCH_MAJOR 100 120)
+        endif()
     endif()
 
     string(APPEND GPU_FLAGS " --fast")
X
(cd base && git apply --check ../p.patch) || { echo "patch does not apply to its own base"; exit 2; }
(cd t && git apply --check ../p.patch 2>/dev/null) && echo "git: forward applies" || echo "git: forward fails"
(cd t && git apply --check -R ../p.patch 2>/dev/null) && echo "git: reverse applies" || echo "git: reverse fails"
out=$("$B" verify --no-gpu p.patch t 2>&1); echo "$out" | grep -E "fix:|hunk"
echo "$out" | grep -q "fix: absent" && { echo "BUG: a rewritten fix reads absent"; exit 1; }
exit 0
