#!/bin/sh
# Builds the packages of a build folder with CPack and checks them:
#   check_package.sh BUILD_DIR
# The .deb: its control fields, its file list, installed with `dpkg --root` into an empty root
# (no libraries of the build host reachable: env -i, LD_LIBRARY_PATH empty) where
# `sm120check --version` must print what the build's binary prints, then removed again.
# The .tar.gz: the same files under one top folder, and a binary that runs.
# Exit 77 (a skip for ctest) without dpkg-deb, unless SM120CHECK_REQUIRE_TOOLS is set.
set -eu
build=$(cd "$1" && pwd)
if ! command -v dpkg-deb >/dev/null 2>&1; then
    [ -n "${SM120CHECK_REQUIRE_TOOLS:-}" ] && { echo "check_package: dpkg-deb missing" >&2; exit 1; }
    echo "check_package: SKIP: dpkg-deb is not installed"
    exit 77
fi
fail() { echo "check_package: FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
cpack --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log" >&2; fail "cpack failed"; }
echo "check_package: cpack took $(($(date +%s) - start)) s"
deb=$(ls "$tmp"/out/sm120check_*.deb)
tgz=$(ls "$tmp"/out/sm120check-*.tar.gz)
expected_version=$("$build/sm120check" --version)
project_version=$(echo "$expected_version" | cut -d' ' -f2)

# Control fields.
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = sm120check ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$project_version" ] || fail "Version: $(field Version), expected $project_version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture: $(field Architecture)"
field Depends | grep -Eq '^libc6 \(>= 2\.[0-9]+\)$' || fail "Depends: $(field Depends)"

# The files: exactly these (directories aside).
files="./usr/bin/sm120check
./usr/share/bash-completion/completions/sm120check
./usr/share/doc/sm120check/LICENSE
./usr/share/doc/sm120check/README.md
./usr/share/man/man1/sm120check.1
./usr/share/zsh/site-functions/_sm120check
./usr/share/zsh/vendor-completions/_sm120check"
got=$(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -v '/$' | sort)
[ "$got" = "$files" ] || fail "the .deb holds:
$got
expected:
$files"

# dpkg --root into an empty root: the package's Depends (libc6) is not installed there.
root="$tmp/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: >"$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --force-bad-path -i "$deb" >"$tmp/dpkg.log" 2>&1 ||
    { cat "$tmp/dpkg.log" >&2; fail "dpkg --root -i failed"; }
dpkg --root="$root" -s sm120check 2>/dev/null | grep -q '^Status: install ok installed' ||
    fail "dpkg --root does not list sm120check as installed"
installed=$(env -i LD_LIBRARY_PATH= "$root/usr/bin/sm120check" --version) ||
    fail "the installed sm120check --version failed"
[ "$installed" = "$expected_version" ] || fail "installed --version: '$installed', build's: '$expected_version'"
echo "check_package: installed with dpkg --root: $installed"
# Stripped: no debug sections in the packaged binary.
if readelf -S "$root/usr/bin/sm120check" | grep -q '\.debug_info'; then fail "the packaged binary is not stripped"; fi
echo "check_package: binary $(wc -c <"$root/usr/bin/sm120check") bytes; .deb $(wc -c <"$deb") bytes; .tar.gz $(wc -c <"$tgz") bytes"
dpkg --root="$root" --force-not-root --force-bad-path -r sm120check >"$tmp/dpkg.log" 2>&1 ||
    { cat "$tmp/dpkg.log" >&2; fail "dpkg --root -r failed"; }
left=$(find "$root" -type f -path "$root/usr/*" | head -n 1)
[ -z "$left" ] || fail "dpkg -r left $left"

# The tarball: one top folder, the same files relative to /usr, and a binary that runs.
top=$(basename "$tgz" .tar.gz)
got=$(tar -tzf "$tgz" | grep -v '/$' | sort)
want=$(echo "$files" | sed "s|^\./usr/|$top/|" | sort)
[ "$got" = "$want" ] || fail "the .tar.gz holds:
$got
expected:
$want"
tar -xzf "$tgz" -C "$tmp"
[ "$(env -i "$tmp/$top/bin/sm120check" --version)" = "$expected_version" ] || fail "the tarball's binary"
echo "check_package: OK"
