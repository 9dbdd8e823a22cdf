#!/bin/sh
# One-command set-up for a fresh Debian 12 machine (run as root, or with sudo available).
#   ./bootstrap.sh demo   install dependencies, build, and verify the bundled example patches
#   ./bootstrap.sh test   install dependencies, build (warnings as errors), run the whole test suite
# Both are idempotent. BUILD_DIR (default: build) chooses the build folder.
set -eu
cd "$(dirname "$0")"
mode=${1:-demo}
build=${BUILD_DIR:-build}

packages="g++ cmake ninja-build pkg-config git patch libgit2-dev libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libpcre2-dev libvectorscan-dev nettle-dev"

install_deps() {
  missing=""
  for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bootstrap: installing:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

case "$mode" in
  demo)
    install_deps
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSM120CHECK_BUILD_TESTS=OFF >/dev/null
    cmake --build "$build"
    echo
    echo "\$ $build/sm120check verify patches/ examples/tree"
    rc=0
    "$build/sm120check" verify patches/ examples/tree || rc=$?
    echo
    echo "bootstrap: sm120check exited with $rc (0 all applied, 1 some applicable, 2 partial/conflict/unknown, 3 could not verify)"
    [ "$rc" -le 2 ]
    ;;
  test)
    install_deps
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSM120CHECK_BUILD_TESTS=ON -DSM120CHECK_WERROR=ON >/dev/null
    cmake --build "$build"
    ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)"
    ;;
  *)
    echo "usage: $0 demo|test" >&2
    exit 2
    ;;
esac
