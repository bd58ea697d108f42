#!/bin/bash
# Issue 35's largest public launches through `smem kernel`, as README.md's speed table times them:
# user CPU, max RSS and the load, one line each, appended to OUTFILE.
#   tools/device/s7/smem_time.sh SMEM PTXDIR OUTFILE [JOBS] [NAME...]
# SMEM: a release build of `smem`; JOBS: `-j` (default 1). PTXDIR holds the cuda-samples PTX
# (NVIDIA/cuda-samples @ c94ff366 at their own sizes, `nvcc -arch=sm_90 -lineinfo -ptx`,
# includes from the samples' Common/): cudaTensorCoreGemm, bf16/tf32/imma/dmmaTensorCoreGemm,
# globalToShmemAsyncCopy and dxtc (.ptx each). The others are this repository's fixtures.
S=$1; F=$2; O=$3; J=${4:-1}; shift 4 2>/dev/null || shift $#
T=$(cd "$(dirname "$0")/../../../tests/data" && pwd)
run() { local name=$1; shift
  [ ${#ONLY[@]} -gt 0 ] && [[ ! " ${ONLY[*]} " == *" $name "* ]] && return
  /usr/bin/time -f "$name -j $J: %U s user %S s sys %e s wall %M KB" -a -o $O timeout 600 $S kernel "$@" -j $J --no-progress > /tmp/smem_time_$name.out 2>&1
  echo "  $(grep -m1 'blocks' /tmp/smem_time_$name.out | cut -c1-100)  load $(cut -d' ' -f1 /proc/loadavg)" >> $O; }
ONLY=("$@")
echo "# $(date -u +%FT%TZ) $($S --version 2>/dev/null) $(git -C "$(dirname "$0")" log --oneline -1 | cut -c1-50)" >> $O
run matrixMul $T/ptx/matmul/kernel.ptx --grid 20,10 --block 32,32 --arg 3=320 --arg 4=640
run LargeChunk $F/globalToShmemAsyncCopy.ptx --kernel 'MatrixMulAsyncCopyMultiStageLargeChunk<16>' --grid 80,80 --block 16,16 --arg 3=1280 --arg 4=1280
run triton_matmul $T/ptx/triton_matmul --grid 4096 --arg 3=4096 --arg 4=4096 --arg 5=4096 --arg 6=4096 --arg 7=4096 --arg 8=4096
run triton_h_matmul $T/ncu/hopper/triton/triton_h_matmul/kernel.ptx --kernel fx_h_matmul --grid 1024 --block 128 --dynamic-shared 98304 --arg 3=4096 --arg 4=4096 --arg 5=4096 --arg 6=4096 --arg 7=4096 --arg 8=4096
run cudaTensorCoreGemm $F/cudaTensorCoreGemm.ptx --kernel compute_gemm --grid 132 --block 256 --dynamic-shared 65536 --arg 4=1.1 --arg 5=1.2
run immaTensorCoreGemm $F/immaTensorCoreGemm.ptx --kernel compute_gemm_imma --grid 132 --block 256 --dynamic-shared 65536 --arg 4=1 --arg 5=1
run bf16TensorCoreGemm $F/bf16TensorCoreGemm.ptx --kernel compute_bf16gemm_async_copy --grid 264 --block 256 --dynamic-shared 73728 --arg 4=1.1 --arg 5=1.2
run tf32TensorCoreGemm $F/tf32TensorCoreGemm.ptx --kernel compute_tf32gemm_async_copy --grid 264 --block 256 --dynamic-shared 73728 --arg 4=1.1 --arg 5=1.2
run dmmaTensorCoreGemm $F/dmmaTensorCoreGemm.ptx --kernel compute_dgemm_async_copy --grid 396 --block 256 --dynamic-shared 69632 --arg 4=1.1 --arg 5=1.2
run dxtc $F/dxtc.ptx --kernel compress --grid 16384 --block 64 --arg 3=0
run simpleAWBarrier $T/ncu/hopper/simpleAWBarrier/simpleAWBarrier.ptx --grid 264 --block 1024 --dynamic-shared 264 --arg 3=10000000
