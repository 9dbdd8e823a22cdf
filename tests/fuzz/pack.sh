#!/bin/sh
# Bundles the fuzz binaries of BUILD_DIR (-DSM120CHECK_FUZZ=ON) with run.sh, the dictionary and
# the seed corpus into OUT (a .tar.gz) for a machine that has none of the build's libraries:
#
#   tests/fuzz/pack.sh [BUILD_DIR] [OUT]      (defaults: build-fuzz, sm120check-fuzz.tar.gz)
#   there: tar xzf sm120check-fuzz.tar.gz && sm120check-fuzz/run.sh -t 1800 -j 16
#
# Refuses binaries that need a shared library beyond glibc's (libc, libm, libpthread, libdl,
# librt, the loader): the fuzzers link libstdc++, libgcc, the sanitizers and the other
# dependencies statically.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build-fuzz}
out=${2:-sm120check-fuzz.tar.gz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest=$stage/sm120check-fuzz
mkdir -p "$dest/bin"
for t in parse apply render arch kernels; do
  exe=$build/tests/fuzz/fuzz_$t
  [ -x "$exe" ] || { echo "pack.sh: no $exe (cmake --build $build --target fuzzers)" >&2; exit 2; }
  extra=$(ldd "$exe" | awk '{print $1}' |
    grep -Ev '^(linux-vdso\.|/lib64/ld-linux|(libc|libm|libpthread|libdl|librt)\.so)' || true)
  [ -z "$extra" ] || { echo "pack.sh: $exe needs: $extra" >&2; exit 1; }
  cp "$exe" "$dest/bin/"
done
cp "$here/run.sh" "$here/patch.dict" "$dest/"
cp -r "$here/corpus" "$dest/corpus"
tar czf "$out" -C "$stage" sm120check-fuzz
echo "pack.sh: $out ($(du -h "$out" | cut -f1))"
