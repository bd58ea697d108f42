#!/bin/bash
# Issue 34, session 6 (lead): pred_probe.cu under ncu: the raw LDGSTS counters of every launch (twice,
# to see whether they vary) and the Source page (per SASS instruction). ~30 s. Results: $OUT/pred.tar.gz.
#   bash tools/device/s6/pred.sh
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd)
R=/tmp/s6pred; B=/tmp/s6predb; mkdir -p $R $B
trap 'tar czf $OUT/pred.tar.gz -C $R . ; ls -la $OUT' EXIT
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op
M="${S}_ldgsts.sum,${W}_ldgsts.sum,smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_thread_inst_executed_op_ldgsts_pred_on.sum"
nvcc -arch=sm_90 -lineinfo -o $B/pred_probe $J/pred_probe.cu > $R/build.log 2>&1
cuobjdump -sass $B/pred_probe > $R/pred_probe.sass 2>&1
cd $B && ./pred_probe > $R/cases.txt 2> $R/run.err
for i in 1 2; do
  timeout 120 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./pred_probe > $R/raw$i.csv 2> $R/ncu$i.err
done
timeout 120 ncu --clock-control none --section SourceCounters -o $R/src -f ./pred_probe > $R/src.log 2>&1
ncu -i $R/src.ncu-rep --csv --page source --print-source sass > $R/source_sass.csv 2>> $R/src.log
echo "rc=$? $(wc -l < $R/cases.txt) launches, ${SECONDS}s"
