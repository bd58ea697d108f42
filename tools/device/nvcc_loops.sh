#!/bin/bash
# Issue 22, session unroll: tests/data/ptx/nvcc_loops on the device (one
# call, from the repository root, with D holding nvcc_loops.cu,
# unroll_driver.cu and this script): nvcc -ptx / -cubin / cuobjdump, then ncu
# counts each kernel's shared instructions (one block of 32 threads, n = 8).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/nvl && rm -rf $W && mkdir -p $W/res && cd $W
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } > res/env.txt 2>&1
cp $D/nvcc_loops.cu .
nvcc -arch=sm_90 -lineinfo -ptx -o res/kernel.ptx nvcc_loops.cu > res/build.log 2>&1
nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v -o k.cubin nvcc_loops.cu >> res/build.log 2>&1
cuobjdump -sass k.cubin > res/kernel.sass 2>&1
nvcc -o unroll_driver $D/unroll_driver.cu -lcuda >> res/build.log 2>&1
names="unroll4_256 unroll1_8 mixed_pragmas plain_32 unroll2_stride2 param_n store_unroll4"
./unroll_driver k.cubin 8 $names > res/run.txt 2>&1
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
ncu --clock-control none --metrics $M --csv --page raw --print-units base ./unroll_driver k.cubin 8 $names > res/ncu.csv 2> res/ncu.err
tar czf $OUT/results.tar.gz -C res .
cat res/run.txt; tail -3 res/build.log; grep -c '^"' res/ncu.csv
