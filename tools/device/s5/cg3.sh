#!/bin/bash
# Issue 34, session 5 (lead), round 5: `./cg_probe zfill` under ncu (raw LDGSTS counters only).
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd)
R=/tmp/s5cg3; B=/tmp/s5cg3b; mkdir -p $R $B
trap 'tar czf $OUT/cg3.tar.gz -C $R . ; ls -la $OUT' EXIT
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op; C=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op
M="${S}_ldgsts.sum,${W}_ldgsts.sum,${C}_ldgsts.sum,smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal.sum"
nvcc -arch=sm_90 -lineinfo -o $B/cg_probe $J/cg_probe.cu > $R/build.log 2>&1
cd $B && ./cg_probe zfill > $R/zfill_cases.txt 2> $R/zfill_run.err
timeout 300 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./cg_probe zfill > $R/zfill.raw.csv 2> $R/zfill.ncu.err
echo "rc=$? $(wc -l < $R/zfill_cases.txt) launches, ${SECONDS}s"
