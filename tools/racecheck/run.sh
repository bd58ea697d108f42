#!/usr/bin/env bash
# Builds tools/racecheck/cases.cu for sm_90 with line info and runs every case
# under compute-sanitizer's racecheck and synccheck, each under a time limit
# (a divergent barrier may hang). Writes one text file per case and tool, the
# SASS, and the tool versions into a folder racecheck/, packed into
# OUT/results.tar.gz (OUT defaults to ./racecheck-out), with OUT/summary.txt.
#
#   tools/racecheck/run.sh [OUT]
#   CASES='ab_race fence_race' tools/racecheck/run.sh [OUT]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:-${OUT:-./racecheck-out}}"
mkdir -p "$dest"
out="$(mktemp -d)/racecheck"
mkdir -p "$out"
export PATH="/usr/local/cuda/bin:$PATH"
build="$(mktemp -d)"
{
  date -u
  nvidia-smi -L
  nvcc --version | tail -2
  compute-sanitizer --version | head -2
} >"$out/versions.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -O2 -o "$build/cases" "$here/cases.cu" >"$out/nvcc.txt" 2>&1 || {
  cat "$out/nvcc.txt"; exit 1; }
cuobjdump -sass "$build/cases" >"$out/cases.sass" 2>&1
cases="${CASES:-ab_race ab_sync reverse_sync reverse_nosync transpose_sync transpose_nosync
transpose_moved matmul_sync matmul_no_second matmul_no_first divergent_ifelse
divergent_lanes warp_reduce_nosync warp_reduce_syncwarp fence_race named_barrier}"
for c in $cases; do
  for tool in racecheck synccheck; do
    extra=""
    [ "$tool" = racecheck ] && extra="--racecheck-report all"
    timeout 30 compute-sanitizer --tool "$tool" $extra --print-limit 20 \
      "$build/cases" "$c" >"$out/$c.$tool.txt" 2>&1
    echo "exit status $?" >>"$out/$c.$tool.txt"
    printf '%-22s %-10s %s\n' "$c" "$tool" \
      "$(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|exit status' "$out/$c.$tool.txt" | tr '\n' ' ')"
  done
done | tee "$dest/summary.txt"
cp "$dest/summary.txt" "$out/summary.txt"
tar -C "$(dirname "$out")" -czf "$dest/results.tar.gz" racecheck
