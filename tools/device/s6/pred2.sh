#!/bin/bash
# Issue 34, session 6 (lead): after pred.sh, the unit-level counter beside the instrumented one:
# l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts (hardware, not SASS-patched) on pred_probe.cu
# and on cuda-samples globalToShmemAsyncCopy kernel 0 (`@!P0 LDGSTS.E.BYPASS.128`), twice each.
# ~60 s. Results: $OUT/pred2.tar.gz.   bash tools/device/s6/pred2.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd $J/../../.. && pwd)
R=/tmp/s6pred2; B=/tmp/s6pred2b; mkdir -p $R $B
trap 'tar czf $OUT/pred2.tar.gz -C $R . ; ls -la $OUT' EXIT
ncu --query-metrics --chip gh100 2>/dev/null | grep -i "ldgsts" > $R/query.txt
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op
M="${S}_ldgsts.sum,${W}_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
nvcc -arch=sm_90 -lineinfo -o $B/pred_probe $J/pred_probe.cu > $R/build.log 2>&1
SM=$ROOT/.samples; s=globalToShmemAsyncCopy; mkdir -p $B/$s
cp $SM/$s.cu $B/$s/ && (cd $B/$s && nvcc -arch=sm_90 -lineinfo -I$SM/Common -o $s $s.cu >> $R/build.log 2>&1)
cd $B && ./pred_probe > $R/cases.txt 2> $R/run.err
for i in 1 2; do
  timeout 120 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./pred_probe > $R/probe$i.csv 2> $R/probe$i.err
  (cd $B/$s && timeout 120 ncu --clock-control none -k regex:MultiStageLargeChunk --metrics "$M" --csv --page raw --print-units base ./$s -kernel=0 -wA=256 -hA=256 -wB=256 -hB=256 > $R/g2s0_$i.csv 2> $R/g2s0_$i.err)
done
echo "done ${SECONDS}s"
