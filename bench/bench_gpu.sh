#!/usr/bin/env bash
# Times the GPU probe on a GPU host, in alternating runs (A B A B ...), whole processes:
#   1. `sm120check gpu` (NVML)            vs `nvidia-smi --query-gpu=compute_cap --format=csv,noheader`
#   2. `sm120check gpu --limits` (CUDA)   vs the same nvidia-smi
#   3. `sm120check verify PATCH TARGET`   vs `sm120check verify --no-gpu PATCH TARGET`
# and prints each side's median wall time (ms), the ratio of the medians and the median of the
# pairwise ratios, then the two acceptance checks of issue 10: gpu <= 1x nvidia-smi, and verify's
# extra time over --no-gpu <= one nvidia-smi run.
#
# usage: bench/bench_gpu.sh [-n RUNS] BIN PATCH TARGET      (RUNS: default 11, plus one warm-up)
# Needs bash, awk, sort, date with %N (GNU coreutils) and nvidia-smi on PATH.
set -u

runs=11
if [ "${1:-}" = "-n" ]; then
  runs=$2
  shift 2
fi
if [ $# -ne 3 ]; then
  echo "usage: $0 [-n RUNS] BIN PATCH TARGET" >&2
  exit 2
fi
bin=$1
patch=$2
target=$3

# Wall time of one run of "$@" in milliseconds (output discarded, exit status ignored).
time_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", (b - a) / 1e6 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# pair NAME_A NAME_B -- runs A and B alternately; sets MED_A, MED_B; prints one line.
pair() {
  local name_a=$1 name_b=$2
  shift 2
  local -a cmd_a cmd_b
  local seen_sep=0
  for arg in "$@"; do
    if [ "$arg" = "--vs" ]; then
      seen_sep=1
    elif [ $seen_sep -eq 0 ]; then
      cmd_a+=("$arg")
    else
      cmd_b+=("$arg")
    fi
  done
  time_ms "${cmd_a[@]}" >/dev/null  # warm-up (page cache, NVML's first open)
  time_ms "${cmd_b[@]}" >/dev/null
  local a_times="" b_times="" ratios="" ta tb
  for ((i = 0; i < runs; i++)); do
    ta=$(time_ms "${cmd_a[@]}")
    tb=$(time_ms "${cmd_b[@]}")
    a_times+="$ta"$'\n'
    b_times+="$tb"$'\n'
    ratios+=$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.3f", a / b }')$'\n'
  done
  MED_A=$(printf '%s' "$a_times" | median)
  MED_B=$(printf '%s' "$b_times" | median)
  local med_ratio
  med_ratio=$(printf '%s' "$ratios" | median)
  printf '%-28s median %8.2f ms | %-28s median %8.2f ms | ratio of medians %.2f, median pairwise ratio %.2f (%d pairs)\n' \
    "$name_a" "$MED_A" "$name_b" "$MED_B" "$(awk -v a="$MED_A" -v b="$MED_B" 'BEGIN { print a / b }')" \
    "$med_ratio" "$runs"
}

smi=(nvidia-smi --query-gpu=compute_cap --format=csv,noheader)

pair "sm120check gpu" "nvidia-smi compute_cap" "$bin" gpu --vs "${smi[@]}"
gpu_ms=$MED_A
smi_ms=$MED_B
pair "sm120check gpu --limits" "nvidia-smi compute_cap" "$bin" gpu --limits --vs "${smi[@]}"
pair "verify (probe)" "verify --no-gpu" "$bin" verify "$patch" "$target" --vs \
  "$bin" verify --no-gpu "$patch" "$target"
verify_ms=$MED_A
nogpu_ms=$MED_B

awk -v g="$gpu_ms" -v s="$smi_ms" -v v="$verify_ms" -v n="$nogpu_ms" 'BEGIN {
  printf "check: gpu / nvidia-smi = %.2f (want <= 1.00): %s\n", g / s, (g <= s ? "ok" : "NOT MET")
  printf "check: verify - verify --no-gpu = %.2f ms, one nvidia-smi run = %.2f ms: %s\n", v - n, s,
    (v - n <= s ? "ok" : "NOT MET")
}'
