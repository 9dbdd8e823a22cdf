#!/bin/sh
# bench_speed.py's one-patch and series rows on a host without the git mirror or farm-bench
# (the H200 GPU host: 16 cores, no network): a tarball of the inputs bench_speed.py built
# (its --workdir: series-patches, checkout-last, checkout-seven, seven.patch) and a static
# sm120check binary travel there; bench/ab.py alternates the runs. Prints medians and ratios
# to the git loop / git pair, for the default thread count, -j 1 and -j 2.
#
#   tar -C WORKDIR -czf inputs.tar.gz series-patches checkout-last checkout-seven seven.patch
#   bench/speed_offline.sh BINARY inputs.tar.gz [RUNS]
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
data=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
runs=${3:-7}
ab=$(cd "$(dirname "$0")" && pwd)/ab.py
work=${TMPDIR:-/tmp}/sm120check-speed-offline
mkdir -p "$work"
cd "$work"
[ -d series-patches ] || tar -xzf "$data"
# The checkouts' .git borrow objects from the mirror (git clone --shared): cut the link (git
# apply --check reads no object) and refresh the index's stat data for these copies.
for t in checkout-last checkout-seven; do
  rm -f "$t/.git/objects/info/alternates"
  git -C "$t" update-index -q --refresh >/dev/null 2>&1 || true
done
echo "cores: $(nproc)"
loop='for p in series-patches/*; do git -C checkout-last apply --check ../$p; git -C checkout-last apply --check -R ../$p; done >/dev/null 2>&1; true'
python3 "$ab" -n "$runs" --ok 0,1,2 \
  "$bin verify --no-gpu series-patches checkout-last" \
  "$bin verify --no-gpu -j 1 series-patches checkout-last" \
  "$bin verify --no-gpu -j 2 series-patches checkout-last" \
  "$loop"
pair='git -C checkout-seven apply --check ../seven.patch 2>/dev/null; git -C checkout-seven apply --check -R ../seven.patch; true'
python3 "$ab" -n $((runs * 2 + 1)) \
  "$bin verify --no-gpu seven.patch checkout-seven" \
  "$bin verify --no-gpu -j 1 seven.patch checkout-seven" \
  "$pair"
