#!/bin/sh
# One-command set-up for a fresh Debian 12 machine (run as root, or with sudo available).
#   ./bootstrap.sh demo   install dependencies, build, and verify the bundled example patches
#   ./bootstrap.sh test   install dependencies, build the self-contained binary (SM120CHECK_STATIC,
#                         warnings as errors), run the whole test suite, which also checks the
#                         binary's ldd, builds the .deb and .tar.gz and installs the .deb with
#                         dpkg --root, and runs the Ansible example; then the sanitizer pass
#                         below with 60 s per fuzzer (SANITIZE=0 skips it)
#   ./bootstrap.sh sanitize [SECONDS]
#                         clang build with ASan+UBSan and libFuzzer coverage (BUILD_DIR-sanitize):
#                         the whole test suite under the sanitizers, then each fuzzer of tests/fuzz
#                         for SECONDS (default 60; 0 skips them; artifacts in BUILD_DIR-sanitize/fuzz)
# All are idempotent. BUILD_DIR (default: build) chooses the build folder.
set -eu
cd "$(dirname "$0")"
mode=${1:-demo}
build=${BUILD_DIR:-build}

packages="g++ cmake ninja-build pkg-config git patch libgit2-dev libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libpcre2-dev nettle-dev libelf-dev libzstd-dev liblz4-dev libxml2-dev python3 python3-jsonschema"
# (libxml2-dev and python3-jsonschema: the tests validate the JUnit and SARIF reports.)
# The sanitizer pass: clang with its sanitizer and libFuzzer runtimes.
sanitize_packages="clang libclang-rt-dev"
# The packaging and fleet tests of `test` (tests/packaging): Ansible's engine for the playbook,
# PyYAML for the examples, zsh and groff for the completion and man page checks. The
# self-contained build links libgit2.a's dependencies from libgit2-dev's (libssh2's header only:
# its functions are stubs there).
test_packages="ansible-core python3-yaml zsh groff-base"

install_deps() {
  missing=""
  for p in $packages "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bootstrap: installing:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

# The sanitizer pass (see the top): the suite under ASan+UBSan, then each fuzzer for $1 seconds.
sanitize() {
  sbuild=$build-sanitize
  cmake -S . -B "$sbuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DSM120CHECK_FUZZ=ON -DSM120CHECK_BUILD_TESTS=ON -DSM120CHECK_WITH_CUDA=OFF >/dev/null
  cmake --build "$sbuild" -j "${JOBS:-$(nproc)}"
  ctest --test-dir "$sbuild" --output-on-failure --no-tests=error -j"$(nproc)"
  [ "$1" -eq 0 ] && return 0
  # A sanitizer error, a hang, out-of-memory or a broken documented invariant (a wrong plan)
  # fails the pass; the input is left in $sbuild/fuzz/TARGET/artifacts/.
  tests/fuzz/run.sh -t "$1" -b "$sbuild/tests/fuzz" -o "$sbuild/fuzz"
}

case "$mode" in
  demo)
    install_deps
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSM120CHECK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build" -j "${JOBS:-$(nproc)}"
    echo
    echo "\$ $build/sm120check verify patches/ examples/tree"
    rc=0
    "$build/sm120check" verify patches/ examples/tree || rc=$?
    echo
    echo "bootstrap: sm120check exited with $rc (0 all applied, 1 some applicable, 2 partial/conflict/unknown, 3 could not verify)"
    [ "$rc" -le 2 ]
    ;;
  test)
    if [ "${SANITIZE:-1}" = 0 ]; then install_deps $test_packages; else install_deps $test_packages $sanitize_packages; fi
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSM120CHECK_BUILD_TESTS=ON -DSM120CHECK_WERROR=ON -DSM120CHECK_STATIC=ON >/dev/null
    cmake --build "$build" -j "${JOBS:-$(nproc)}"
    # Every packaging and fleet test must run here: a missing tool fails instead of skipping.
    SM120CHECK_REQUIRE_TOOLS=1 ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)"
    [ "${SANITIZE:-1}" = 0 ] || sanitize 60
    ;;
  sanitize)
    install_deps $sanitize_packages
    sanitize "${2:-60}"
    ;;
  *)
    echo "usage: $0 demo|test|sanitize [SECONDS]" >&2
    exit 2
    ;;
esac
