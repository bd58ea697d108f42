#!/bin/bash
# Issue 34 (helper D), round 2: what cp.async.cg's (LDGSTS.BYPASS) wavefront counter
# follows: src-size or not, global patterns, 1 to 8 warps, 1 or 8 blocks, repeated.
# Usage: bash run2.sh OUTDIR. About 30 s.
set -u
OUT=${1:?usage: run2.sh OUTDIR}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
J=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
B=$(mktemp -d /tmp/s4d2.XXXX)
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; ncu --version; } > "$OUT/env.txt" 2>&1
nvcc -arch=sm_90 -lineinfo -o $B/async_probe $J/async_probe.cu > $OUT/build.log 2>&1 && cuobjdump -sass $B/async_probe > $OUT/async_r2.sass
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op; C=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op
M="${S}_ldgsts.sum,${S}_ldgsts_cache_access.sum,${S}_ldgsts_cache_bypass.sum,${W}_ldgsts.sum,${W}_ldgsts_cache_access.sum,${W}_ldgsts_cache_bypass.sum,${C}_ldgsts.sum,smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
cd $B
./async_probe r2 > $OUT/async_r2_cases.txt 2> $OUT/async_r2_run.err
timeout 150 ncu --csv --page raw --print-units base --metrics "$M" ./async_probe r2 > $OUT/ncu_async_r2.csv 2> $OUT/ncu_async_r2.err
echo "rc=$? $(wc -l < $OUT/async_r2_cases.txt) launches" > $OUT/log.txt
rm -rf $B
