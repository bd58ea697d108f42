#!/bin/bash
# Issue 34 device job (lead): public tensor-core and asynchronous kernels on the H200,
# whole-launch Nsight Compute counters (both families, gmma/ldgsts/stsm included) and
# compute-sanitizer racecheck + synccheck verdicts, with their PTX and SASS:
#  - NVIDIA cuda-samples (BSD-3, github NVIDIA/cuda-samples @ c94ff366, copied into .samples/
#    by the lead, not committed): cudaTensorCoreGemm, bf16/tf32/imma/dmmaTensorCoreGemm
#    (matrices shrunk by sed: *_TILES -> 32, so a launch profiles and sanitizes in seconds),
#    globalToShmemAsyncCopy (all 8 kernels, 256x256 matrices, nIter 100 -> 2), simpleAWBarrier;
#  - Triton 3.6 on sm_90: tools/device/s4/triton_hopper.py (matmul, TMA matmul, attention).
#   bash tools/device/s4/job.sh      (from the repository root, on the device)
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd $J/../../.. && pwd)
R=/tmp/s4; B=/tmp/s4b; mkdir -p $R $B
log() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }
trap 'tar czf $OUT/s4.tar.gz -C $R . ; ls -la $OUT' EXIT
{ nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv; nvcc --version | tail -2; ncu --version; compute-sanitizer --version; python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)"; } > $R/env.txt 2>&1
cat $R/env.txt
timeout 90 ncu --query-metrics --chip gh100 > $B/query.txt 2>&1
grep -i -E "gmma|ldgsts|stsm|ldsm|dshared|gds|tma|shared" $B/query.txt > $R/query_async.txt
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
         l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st \
         smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_st \
         launch__grid_size launch__block_size launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic \
         launch__registers_per_thread launch__cluster_dim_x launch__grid_dim_x launch__grid_dim_y launch__grid_dim_z \
         launch__block_dim_x launch__block_dim_y launch__block_dim_z; do
  if grep -q "^$n\b" $B/query.txt; then
    case $n in launch__*) WANT="$WANT,$n";; *) WANT="$WANT,$n.sum";; esac
  else echo "absent: $n" >> $R/absent.txt; fi
done
WANT=${WANT#,}; echo "$WANT" > $R/metrics_used.txt; cat $R/absent.txt 2>/dev/null
S=$ROOT/.samples
log build
for s in cudaTensorCoreGemm bf16TensorCoreGemm tf32TensorCoreGemm immaTensorCoreGemm dmmaTensorCoreGemm globalToShmemAsyncCopy simpleAWBarrier; do
  mkdir -p $B/$s $R/$s
  sed -E -e 's/^#define ([MNK])_TILES [0-9]+/#define \1_TILES 32/' -e 's/int nIter = 100;/int nIter = 2;/' $S/$s.cu > $B/$s/$s.cu
  diff $S/$s.cu $B/$s/$s.cu > $R/$s/shrink.diff
  ( cd $B/$s && nvcc -arch=sm_90 -lineinfo -I$S/Common -o $s $s.cu > build.log 2>&1; \
    nvcc -arch=sm_90 -lineinfo -I$S/Common -ptx -o $R/$s/$s.ptx $s.cu >> build.log 2>&1; \
    cuobjdump -sass $s > $R/$s/$s.sass 2>&1; cp build.log $R/$s/ ) &
done
wait
log "triton dump"
mkdir -p $R/triton; export TRITON_CACHE_DIR=/tmp/tcs4
( cd $J && timeout 180 python3 triton_hopper.py $R/triton > $R/triton/run.txt 2>&1 )
cat $R/triton/run.txt | grep -E "FX|Error|error" | head
run_ncu() { # dir name cmd...
  local d=$1; shift; local n=$1; shift
  timeout 120 ncu --clock-control none --metrics "$WANT" --csv --page raw --print-units base "$@" > $d/$n.raw.csv 2> $d/$n.ncu.err
}
log ncu
for s in cudaTensorCoreGemm bf16TensorCoreGemm tf32TensorCoreGemm immaTensorCoreGemm dmmaTensorCoreGemm simpleAWBarrier; do
  log "ncu $s"; (cd $B/$s && ./$s > $R/$s/run.txt 2>&1; run_ncu $R/$s ncu -c 4 ./$s)
done
G=$B/globalToShmemAsyncCopy
for k in 0 1 2 3 4 5 6 7; do
  log "ncu g2s $k"; (cd $G && ./globalToShmemAsyncCopy -kernel=$k -wA=256 -hA=256 -wB=256 -hB=256 > $R/globalToShmemAsyncCopy/run$k.txt 2>&1; \
     run_ncu $R/globalToShmemAsyncCopy ncu$k -c 1 ./globalToShmemAsyncCopy -kernel=$k -wA=256 -hA=256 -wB=256 -hB=256)
done
log "ncu triton"
( cd $J && run_ncu $R/triton ncu -k regex:^fx_h_ python3 triton_hopper.py - )
log sanitizers
san() { # dir name tool cmd...
  local d=$1; shift; local n=$1; shift; local t=$1; shift
  timeout 240 compute-sanitizer --tool $t --print-limit 20 "$@" > $d/$n.$t.txt 2>&1; echo "exit $?" >> $d/$n.$t.txt
}
for s in cudaTensorCoreGemm bf16TensorCoreGemm tf32TensorCoreGemm immaTensorCoreGemm dmmaTensorCoreGemm simpleAWBarrier; do
  for t in racecheck synccheck; do (cd $B/$s && san $R/$s san $t ./$s) & done
done
for k in 0 1 2 3 4 5 6 7; do for t in racecheck synccheck; do
  (cd $G && san $R/globalToShmemAsyncCopy san$k $t ./globalToShmemAsyncCopy -kernel=$k -wA=256 -hA=256 -wB=256 -hB=256) &
done; done
for t in racecheck synccheck; do (cd $J && san $R/triton san $t python3 triton_hopper.py -) & done
wait
log done
grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY|exit" $R/*/san*.txt | sort | uniq -c
