#!/bin/sh
# Runs the self-contained binary in clean roots of the distributions it is for, as root:
#   clean_root_test.sh BINARY [ROOTS_DIR]
# For Debian 12 (bookworm), Ubuntu 22.04 (jammy) and Ubuntu 24.04 (noble) it makes (once, into
# ROOTS_DIR, default /var/tmp/sm120check-roots) a `debootstrap --variant=minbase` root, copies
# the binary and a few inputs in, and under chroot with an empty environment checks: ldd lists
# glibc only; --version; verify (text; JSON with the patch on standard input); log and
# verify --rev (libgit2); grep -E (PCRE2); kernels (libelf); gpu without a driver
# (exit 1); gpu through the suite's fake NVML when FAKE_NVML names it (dlopen with the root's
# glibc). Not part of ctest: it needs the network (Debian and Ubuntu mirrors), debootstrap and
# 3-4 minutes and 200 MB per root. Ubuntu roots are made without checking the archive's
# signature (Debian ships no Ubuntu keyring); they only run this test.
set -eu
bin=$(realpath "$1")
roots=${2:-/var/tmp/sm120check-roots}
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "clean_root_test: FAIL: $*" >&2; exit 1; }
command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
[ "$(id -u)" -eq 0 ] || fail "run as root (debootstrap, chroot)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
( # a repository with one fix commit, for log and --rev
    cd "$tmp"
    export HOME="$tmp" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e \
        GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e
    git init -q -b main repo && printf 'a\nb\nc\n' >repo/f.txt
    git -C repo add f.txt && git -C repo commit -q -m base
    printf 'a\nB\nc\n' >repo/f.txt && git -C repo diff >fix.patch && git -C repo commit -q -am fix
)

for spec in "bookworm http://deb.debian.org/debian Debian-GNU/Linux-12" \
    "jammy http://archive.ubuntu.com/ubuntu Ubuntu-22.04" \
    "noble http://archive.ubuntu.com/ubuntu Ubuntu-24.04"; do
    set -- $spec
    suite=$1 mirror=$2 name=$3
    root="$roots/$suite"
    if [ ! -x "$root/bin/sh" ]; then
        mkdir -p "$roots"
        extra=""
        [ "$suite" = bookworm ] || extra="--no-check-gpg"
        # debootstrap 1.0.128 (Debian 12) has no script for noble; jammy's (gutsy) serves.
        script=""
        [ -e "/usr/share/debootstrap/scripts/$suite" ] || script=/usr/share/debootstrap/scripts/gutsy
        echo "clean_root_test: debootstrap $suite into $root"
        debootstrap --variant=minbase $extra "$suite" "$root" "$mirror" $script >"$tmp/$suite.log" 2>&1 ||
            { tail -5 "$tmp/$suite.log" >&2; fail "debootstrap $suite"; }
    fi
    t="$root/opt/sm120check-test"
    rm -rf "$t" && mkdir -p "$t"
    cp "$bin" "$t/sm120check"
    cp -R "$src/patches" "$src/examples/tree" "$src/tests/data/kernels/libtwo.so" \
        "$tmp/repo" "$tmp/fix.patch" "$t/"
    [ -n "${FAKE_NVML:-}" ] && cp "$FAKE_NVML" "$t/libfake_nvml.so"
    in_root() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" sh -c "cd /opt/sm120check-test && $1"; }
    os=$(in_root '. /etc/os-release; echo "$NAME-$VERSION_ID"' | tr ' ' '-')
    case $os in "$name"*) ;; *) fail "$suite: /etc/os-release says $os" ;; esac
    libs=$(in_root 'ldd ./sm120check' | awk '{print $1}' | sort | tr '\n' ' ')
    [ "$libs" = "/lib64/ld-linux-x86-64.so.2 libc.so.6 linux-vdso.so.1 " ] ||
        fail "$suite: ldd lists $libs"
    in_root './sm120check --version' | grep -q '^sm120check ' || fail "$suite: --version"
    rc=0; out=$(in_root './sm120check verify --no-gpu patches tree') || rc=$?
    [ $rc -eq 2 ] && echo "$out" | grep -q '^summary: 3 patches: 1 applied, 1 applicable, 1 conflict' ||
        fail "$suite: verify (exit $rc): $out"
    rc=0; out=$(in_root './sm120check verify --format json --no-gpu - tree < patches/0002-decode_attention-one-pipeline-stage-on-SM120.patch') || rc=$?
    [ $rc -eq 0 ] && echo "$out" | grep -q '"schema": "sm120check.verify/' || fail "$suite: verify --format json (exit $rc)"
    rc=0; out=$(in_root './sm120check log fix.patch repo') || rc=$?
    [ $rc -eq 0 ] && echo "$out" | grep -q '^fix brought in by: ' || fail "$suite: log (exit $rc): $out"
    rc=0; out=$(in_root './sm120check verify --no-gpu --rev HEAD~1 fix.patch repo') || rc=$?
    [ $rc -eq 1 ] || fail "$suite: verify --rev (exit $rc): $out"
    rc=0; out=$(in_root "./sm120check grep -E tree 'CUDA_CAPABILITY\\[0\\] == 1[0-9]'") || rc=$?
    [ $rc -eq 0 ] && echo "$out" | grep -q 'decode_attention.py:13:' || fail "$suite: grep -E (exit $rc): $out"
    rc=0; out=$(in_root './sm120check kernels --cc 12.0 libtwo.so') || rc=$?
    [ $rc -eq 1 ] && echo "$out" | grep -q '1 with CUDA code' || fail "$suite: kernels (exit $rc): $out"
    rc=0; out=$(in_root './sm120check gpu') || rc=$?
    [ $rc -eq 1 ] && echo "$out" | grep -q 'no CUDA driver found' || fail "$suite: gpu without a driver (exit $rc): $out"
    if [ -n "${FAKE_NVML:-}" ]; then
        rc=0; out=$(in_root 'SM120CHECK_NVML_LIBRARY=$PWD/libfake_nvml.so FAKE_NVML_SCENARIO=two ./sm120check gpu') || rc=$?
        [ $rc -eq 0 ] && echo "$out" | grep -q 'compute capability: *12.1' || fail "$suite: gpu through the fake NVML (exit $rc): $out"
    fi
    rm -rf "$t"
    echo "clean_root_test: $suite ($os): OK"
done
