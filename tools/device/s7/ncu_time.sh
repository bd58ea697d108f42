#!/bin/bash
# Issue 35 (lead, session 2026-11-29 from 09:12 UTC): how long Nsight Compute takes to profile
# the very launches the README's speed table times `smem kernel` on, at full size, with the
# shared-memory counters tools/device/s4/job.sh reads (both families, gmma/ldgsts/ldsm/stsm):
#  - each program alone (wall);
#  - ncu on the one launch smem models (`-k NAME -c 1`, wall, process start included);
#  - ncu on the whole program (every launch, wall), where it ends within the timeout.
# cuda-samples (NVIDIA/cuda-samples @ c94ff366, in .samples/, not committed) at their own
# sizes; dxtc reads a generated 512x512 PPM (teapot512_std.ppm is not in .samples); matrixMul
# is tests/data/ptx/matmul/matmul.cu; Triton's are tools/device/s7/triton_4096.py.
#   bash tools/device/s7/ncu_time.sh [NAME...]     (repository root, on the device; default all)
set -u
export PATH=/usr/local/cuda/bin:$PATH
ROOT=$(pwd); S=$ROOT/.samples; B=/tmp/s7b; R=$OUT/s7; mkdir -p $B $R
log() { echo "[$(date -u +%T) +${SECONDS}s] $*" | tee -a $R/log.txt; }
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -1; ncu --version | tail -1; nproc; uptime; } > $R/env.txt 2>&1
timeout 90 ncu --query-metrics --chip gh100 > $B/query.txt 2>&1
WANT=""
for n in smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st smsp__sass_inst_executed_op_shared_atom \
         smsp__sass_inst_executed_op_ldsm smsp__sass_inst_executed_op_shared_stsm smsp__sass_inst_executed_op_ldgsts smsp__sass_inst_executed_op_shared_gmma \
         smsp__sass_inst_executed_op_ldgsts_cache_access smsp__sass_inst_executed_op_ldgsts_cache_bypass \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts \
         smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm \
         smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st; do
  grep -q "^$n\b" $B/query.txt && WANT="$WANT,$n.sum"
done
WANT=${WANT#,}; echo "$WANT" | tr ',' '\n' > $R/metrics.txt; log "$(wc -l < $R/metrics.txt) metrics"
log build
for s in cudaTensorCoreGemm bf16TensorCoreGemm tf32TensorCoreGemm immaTensorCoreGemm dmmaTensorCoreGemm globalToShmemAsyncCopy simpleAWBarrier; do
  [ -x $B/$s/$s ] && continue
  mkdir -p $B/$s; ( cd $B/$s && nvcc -arch=sm_90 -lineinfo -I$S/Common -o $s $S/$s.cu > build.log 2>&1 || echo "build $s failed" ) &
done
mkdir -p $B/dxtc $B/matmul
[ -x $B/dxtc/dxtc ] || ( cd $B/dxtc && cp $S/dxtc/* . && nvcc -arch=sm_90 -lineinfo -I$S/Common -I. -o dxtc dxtc.cu > build.log 2>&1 || echo "build dxtc failed"
  python3 -c "
import random; random.seed(7); w=h=512
px=bytes(random.randrange(256) if (i//3)%7 else (i*13)%256 for i in range(w*h*3))
open('teapot512_std.ppm','wb').write(b'P6\n%d %d\n255\n'%(w,h)+px)" ) &
[ -x $B/matmul/matmul ] || ( cd $B/matmul && nvcc -arch=sm_90 -lineinfo -I$ROOT/tests/data/ptx -o matmul $ROOT/tests/data/ptx/matmul/matmul.cu > build.log 2>&1 || echo "build matmul failed" ) &
wait
cat $B/*/build.log | grep -i error | head
export TRITON_CACHE_DIR=/tmp/tc7
T="python3 $ROOT/tools/device/s7/triton_4096.py"
# name | kernel regex for -k | command
PROGS=(
 "matrixMul|regex:MatrixMulCUDA|$B/matmul/matmul"
 "LargeChunk|regex:MatrixMulAsyncCopyMultiStageLargeChunk|$B/globalToShmemAsyncCopy/globalToShmemAsyncCopy -kernel=0 -wA=1280 -hA=1280 -wB=1280 -hB=1280"
 "triton_matmul|regex:^fx_matmul|$T matmul"
 "triton_h_matmul|regex:^fx_h_matmul|$T h_matmul"
 "cudaTensorCoreGemm|regex:compute_gemm|$B/cudaTensorCoreGemm/cudaTensorCoreGemm"
 "immaTensorCoreGemm|regex:compute_gemm_imma|$B/immaTensorCoreGemm/immaTensorCoreGemm"
 "bf16TensorCoreGemm|regex:compute_bf16gemm_async_copy|$B/bf16TensorCoreGemm/bf16TensorCoreGemm"
 "tf32TensorCoreGemm|regex:compute_tf32gemm_async_copy|$B/tf32TensorCoreGemm/tf32TensorCoreGemm"
 "dmmaTensorCoreGemm|regex:compute_dgemm_async_copy|$B/dmmaTensorCoreGemm/dmmaTensorCoreGemm"
 "dxtc|regex:compress|$B/dxtc/dxtc"
 "simpleAWBarrier|regex:normVecByDotProductAWBarrier|$B/simpleAWBarrier/simpleAWBarrier"
)
# Triton compiles once into the cache before anything is timed.
[ -d $TRITON_CACHE_DIR ] || $T > $R/triton_warm.txt 2>&1
[ -f $R/times.csv ] || echo "name,alone_s,ncu_one_launch_s,ncu_one_rc,ncu_whole_s,ncu_whole_rc,launches_profiled" > $R/times.csv
for p in "${PROGS[@]}"; do
  IFS='|' read -r name k cmd <<< "$p"; d=$(dirname ${cmd%% *}); [ -d "$d" ] || d=$B
  [ $# -eq 0 ] || [[ " $* " == *" $name "* ]] || continue
  log "$name"
  t0=$(date +%s.%N); (cd $d && timeout 120 $cmd > $R/$name.run.txt 2>&1); t1=$(date +%s.%N)
  (cd $d && timeout 120 ncu --metrics "$WANT" -k "$k" -c 1 --csv --page raw $cmd > $R/$name.one.csv 2> $R/$name.one.err); rc1=$?; t2=$(date +%s.%N)
  (cd $d && timeout 150 ncu --metrics "$WANT" --csv --page raw $cmd > $R/$name.whole.csv 2> $R/$name.whole.err); rc2=$?; t3=$(date +%s.%N)
  n=$(grep -c '^"[0-9]' $R/$name.whole.csv)
  echo "$name,$(awk "BEGIN{print $t1-$t0}"),$(awk "BEGIN{print $t2-$t1}"),$rc1,$(awk "BEGIN{print $t3-$t2}"),$rc2,$n" | tee -a $R/times.csv
done
log done; tar czf $OUT/s7.tar.gz -C $OUT s7 && rm -rf $R
