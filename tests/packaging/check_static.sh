#!/bin/sh
# The self-contained binary (SM120CHECK_STATIC) needs nothing but glibc, and no glibc newer
# than MIN_GLIBC, and has libgit2 inside it:
#   check_static.sh BINARY MIN_GLIBC
# 1. Its dynamic section (readelf -d) names only glibc's libraries (libc, libm, the loader,
#    optionally libdl, libpthread, librt), and ldd resolves nothing else: nothing another
#    host would have to install.
# 2. No symbol asks for a glibc version newer than MIN_GLIBC (2.35: Ubuntu 22.04; Debian 12 has
#    2.36, Ubuntu 24.04 2.39), or the loader refuses to start it there.
# 3. It starts with an empty environment (env -i: no PATH, no LD_LIBRARY_PATH).
# 4. libgit2 is linked, not opened: `log` in a fresh repository works while
#    SM120CHECK_LIBGIT2_LIBRARY names a missing file (a dlopen build fails there, exit 3).
set -eu
bin=$1
min=$2
fail() { echo "check_static: FAIL: $*" >&2; exit 1; }

allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "no NEEDED entries read from $bin"
for lib in $needed; do
    echo "$lib" | grep -Eq "$allowed" || fail "$bin needs $lib (readelf -d): not part of glibc"
done
# ldd: every line is the vDSO, the loader or an allowed library, and nothing is "not found".
ldd "$bin" | while read -r name rest; do
    case $name in
        linux-vdso.so.1 | linux-gate.so.1 | /lib*/ld-linux*) ;;
        *) echo "$name" | grep -Eq "$allowed" || fail "ldd $bin lists $name $rest" ;;
    esac
    case $rest in *"not found"*) fail "ldd $bin: $name not found" ;; esac
done
echo "check_static: NEEDED: $(echo $needed)"

# The newest GLIBC_x.y version any symbol asks for.
newest=$(readelf --dyn-syms -W "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
[ -n "$newest" ] || fail "no GLIBC symbol versions read from $bin"
highest=$(printf '%s\n%s\n' "$newest" "$min" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
if [ "$highest" != "$min" ]; then
    readelf --dyn-syms -W "$bin" | grep "GLIBC_$newest" >&2
    fail "$bin needs glibc $newest, newer than $min (the symbols above)"
fi
echo "check_static: newest glibc symbol version: $newest (at most $min)"

version=$(env -i LD_LIBRARY_PATH= "$bin" --version) || fail "$bin --version failed under env -i"
echo "check_static: env -i: $version"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(
    cd "$tmp"
    export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
        GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
    git init -q -b main repo
    printf 'a\nb\nc\n' >repo/f.txt
    git -C repo add f.txt && git -C repo commit -q -m base
    printf 'a\nB\nc\n' >repo/f.txt
    git -C repo diff >fix.patch
    git -C repo commit -q -am fix
) || fail "could not make the test repository (git)"
out=$(env -i HOME="$tmp" SM120CHECK_LIBGIT2_LIBRARY=/nonexistent/libgit2.so \
    "$bin" log "$tmp/fix.patch" "$tmp/repo" 2>&1) || fail "log without a loadable libgit2: $out"
echo "$out" | grep -q '^fix brought in by: ' || fail "log printed no fix commit: $out"
echo "check_static: libgit2 linked: log works without a loadable libgit2"
echo "check_static: OK"
