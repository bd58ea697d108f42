#!/bin/bash
# Issue 34, session 5 (lead): `./cg_probe MODE` under ncu (raw LDGSTS counters only), for the
# rounds after the first: MODE `sweep` (round 4, 246 launches, 10 s) or `zfill` (round 5, the
# src-size-register form, 99 launches, 6 s). Results in $OUT/MODE.tar.gz.
#   bash tools/device/s5/cg2.sh sweep|zfill
set -u
MODE=${1:?usage: cg2.sh sweep|zfill}
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd)
R=/tmp/s5$MODE; B=/tmp/s5${MODE}b; mkdir -p $R $B
trap 'tar czf $OUT/$MODE.tar.gz -C $R . ; ls -la $OUT' EXIT
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op; C=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op
M="${S}_ldgsts.sum,${W}_ldgsts.sum,${C}_ldgsts.sum,smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal.sum"
nvcc -arch=sm_90 -lineinfo -o $B/cg_probe $J/cg_probe.cu > $R/build.log 2>&1
cd $B && ./cg_probe $MODE > $R/${MODE}_cases.txt 2> $R/${MODE}_run.err
timeout 300 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./cg_probe $MODE > $R/$MODE.raw.csv 2> $R/$MODE.ncu.err
echo "rc=$? $(wc -l < $R/${MODE}_cases.txt) launches, ${SECONDS}s"
