#!/bin/bash
# Issue 22, session unroll (2026-11-26): the ptxas unrolling probes of
# tests/data/ptx/ptxas_unrolling, in one device call from the repository root
# with the folder D holding this script, unroll_driver.cu and the PTX files
# with kernels.json (python3 tools/device/unroll_probes.py D):
#   1. ptxas -arch=sm_90 -v FILE.ptx -o FILE.cubin; cuobjdump -sass FILE.cubin;
#   2. ncu counts each kernel's executed shared instructions and wavefronts
#      (one block of 32 threads, n = 8) through unroll_driver.
# FILES names the PTX files to run (all by default; the second call of the
# session ran FILES=limits, the round-2 probes).
# Writes $OUT/results.tar.gz (env.txt, FILE.sass, FILE.build.log, FILE.ncu.csv,
# FILE.run.txt) and $OUT/log.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/unroll && rm -rf $W && mkdir -p $W/res && cd $W
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2;
  ptxas --version | tail -2; cuobjdump --version | tail -1; ncu --version | tail -1; } > res/env.txt 2>&1
nvcc -o unroll_driver $D/unroll_driver.cu -lcuda > res/driver.build.log 2>&1 || echo "driver build failed"
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
FILES=${FILES:-loops shapes bodies unsettled packed limits}
for f in $FILES; do
  ptxas -arch=sm_90 -v $D/$f.ptx -o $f.cubin > res/$f.build.log 2>&1 || echo "ptxas $f failed"
  cuobjdump -sass $f.cubin > res/$f.sass 2>&1
  echo "$f: $(grep -c 'Function :' res/$f.sass) functions"
done
tar czf $OUT/results.tar.gz -C $W/res .
for f in $FILES; do
  names=$(python3 -c "import json,sys; k=json.load(open('$D/kernels.json')); print(' '.join(n for n,e in k.items() if e['file']=='$f.ptx'))")
  ./unroll_driver $f.cubin 8 $names > res/$f.run.txt 2>&1
  echo "$f run: $(grep -c ^RAN res/$f.run.txt) ran; $(grep FAIL res/$f.run.txt)"
  timeout 200 ncu --clock-control none --metrics $M --csv --page raw --print-units base ./unroll_driver $f.cubin 8 $names > res/$f.ncu.csv 2> res/$f.ncu.err
  echo "$f ncu exit $? rows $(grep -c '^"' res/$f.ncu.csv)"
  tar czf $OUT/results.tar.gz -C $W/res .
done
cat res/env.txt
