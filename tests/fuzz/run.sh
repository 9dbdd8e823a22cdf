#!/bin/sh
# Runs the libFuzzer targets (tests/fuzz/fuzz_targets.hpp), one after the other, each for
# SECONDS with JOBS parallel processes sharing one working corpus (-jobs=JOBS -workers=JOBS).
#
#   tests/fuzz/run.sh [-t SECONDS] [-j JOBS] [-b BIN_DIR] [-o OUT_DIR] [-c CORPUS_DIR]... [TARGET...]
#
#   -t  seconds per target (per job), default 60
#   -j  parallel jobs per target, default 1 (in the foreground, its output on stderr)
#   -b  folder of the fuzz_* binaries; default: ./bin next to this script (a pack.sh bundle),
#       else build-fuzz/tests/fuzz of the checkout
#   -o  output folder, default ./fuzz-out: OUT/TARGET/corpus (the working corpus, seeded from
#       the committed one, which is never written), OUT/TARGET/artifacts (crash-*, timeout-*,
#       oom-*, leak-*: inputs to reproduce with `fuzz_TARGET FILE`), OUT/TARGET/*.log
#   -c  more seed folders, read only (e.g. real patches kept out of the repository); a folder
#       holding one sub-folder per target gives each target its own
#   TARGET  parse, apply, render, arch, kernels (default: all five)
#
# Hang and size discipline: -timeout=10 (an input that runs 10 s is a "timeout" artifact: with
# 16 KiB inputs at most, nothing linear comes near it, even under ASan), -max_len=16384,
# -rss_limit_mb=2048. Exit status 1 when any target left an artifact, else 0.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
seconds=60
jobs=1
bin=""
out=fuzz-out
extra=""
while getopts t:j:b:o:c: opt; do
  case "$opt" in
    t) seconds=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) bin=$OPTARG ;;
    o) out=$OPTARG ;;
    c) extra="$extra $(cd "$OPTARG" && pwd)" ;;
    *) sed -n '2,20p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
targets=${*:-parse apply render arch kernels}
if [ -z "$bin" ]; then
  if [ -d "$here/bin" ]; then bin=$here/bin; else bin=$here/../../build-fuzz/tests/fuzz; fi
fi
bin=$(cd "$bin" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

found=0
for t in $targets; do
  exe=$bin/fuzz_$t
  [ -x "$exe" ] || { echo "run.sh: no fuzzer $exe (build with -DSM120CHECK_FUZZ=ON)" >&2; exit 2; }
  dir=$out/$t
  mkdir -p "$dir/corpus" "$dir/artifacts"
  seeds="$here/corpus/$t"
  for c in $extra; do
    if [ -d "$c/$t" ]; then seeds="$seeds $c/$t"; else seeds="$seeds $c"; fi
  done
  flags="-max_total_time=$seconds -timeout=10 -max_len=16384 -rss_limit_mb=2048
    -dict=$here/patch.dict -artifact_prefix=$dir/artifacts/ -print_final_stats=1"
  echo "run.sh: $t for ${seconds}s x $jobs job(s): $dir" >&2
  start=$(date +%s)
  # shellcheck disable=SC2086 # word splitting of flags and seed folders is meant
  if [ "$jobs" -gt 1 ]; then
    (cd "$dir" && "$exe" $flags -jobs="$jobs" -workers="$jobs" "$dir/corpus" $seeds \
      >"$dir/jobs.log" 2>&1) || true
  else
    "$exe" $flags "$dir/corpus" $seeds 2>"$dir/fuzz-0.log" || true
  fi
  # The last coverage line of each job: executions, coverage (cov: edges, ft: features), corpus.
  summary=$(for log in "$dir"/fuzz-*.log; do
    grep -E '^#[0-9]+' "$log" | tail -n 1
  done)
  runs=$(for log in "$dir"/fuzz-*.log; do
    sed -n 's/^stat::number_of_executed_units: *//p' "$log"
  done | awk '{s += $1} END {print s + 0}')
  artifacts=$(find "$dir/artifacts" -type f | wc -l)
  echo "run.sh: $t: $((  $(date +%s) - start ))s, $runs executions, $artifacts artifact(s)" >&2
  echo "$summary" | sed "s/^/run.sh: $t: /" >&2
  [ "$artifacts" -eq 0 ] || { found=1; find "$dir/artifacts" -type f >&2; }
done
exit $found
