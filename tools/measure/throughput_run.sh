#!/bin/bash
# The runs behind tests/data/hw-corpus/sm90-throughput-streams.jsonl (issue 13,
# 2026-11-23, one H100 80GB HBM3): build, SASS, the warp-count curve, the
# instruction-stream variants, and the records. Run from this folder on a
# machine with an sm_90 GPU; results go to $OUT (default ./out).
set -e
cd "$(dirname "$0")"
OUT=${OUT:-out}
mkdir -p "$OUT"
C=../../tests/data/hw-corpus/sm90-timing.jsonl
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
nvcc -O3 -arch=sm_90 -o throughput throughput.cu
cuobjdump -sass throughput > "$OUT/sass.txt"
python3 throughput_jobs.py $C curve > jobs_curve.txt
python3 throughput_jobs.py $C robust > jobs_robust.txt
python3 throughput_jobs.py $C unroll pad dep place > jobs_mech.txt
./throughput < jobs_curve.txt > "$OUT/curve.jsonl"
./throughput < jobs_robust.txt > "$OUT/robust.jsonl"
./throughput < jobs_mech.txt > "$OUT/mech.jsonl"
# Repeatability: the curve again in another process.
./throughput < jobs_curve.txt > "$OUT/curve2.jsonl"
python3 throughput_summary.py $C "$OUT/curve.jsonl" > "$OUT/curve_summary.txt"
python3 throughput_corpus.py $C "$OUT/curve.jsonl" "$OUT/robust.jsonl" > "$OUT/sm90-throughput-streams.jsonl"
