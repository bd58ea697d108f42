#!/bin/bash
# Issue 34, session 5 (lead): cp.async.cg (LDGSTS.BYPASS) wavefronts, instruction by instruction.
# Builds tools/device/s5/cg_probe.cu and, from cuda-samples (.samples, carried, not committed),
# bf16TensorCoreGemm (shrunk as tools/device/s4/job.sh does) and globalToShmemAsyncCopy; profiles
# each with the LDGSTS counters and the Source page (per SASS instruction), and repeats the GEMM
# and globalToShmem kernel 0 three times (is the counter deterministic?).
#   bash tools/device/s5/cg.sh        (repository root, on the device; results in $OUT/cg.tar.gz)
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd $J/../../.. && pwd)
R=/tmp/s5cg; B=/tmp/s5cgb; mkdir -p $R $B
log() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }
trap 'tar czf $OUT/cg.tar.gz -C $R . ; ls -la $OUT' EXIT
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; ncu --version; } > $R/env.txt 2>&1
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op; C=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op
M="${S}_ldgsts.sum,${S}_ldgsts_cache_access.sum,${S}_ldgsts_cache_bypass.sum,${W}_ldgsts.sum,${W}_ldgsts_cache_access.sum,${W}_ldgsts_cache_bypass.sum,${C}_ldgsts.sum,smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum,smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal.sum"
log build
nvcc -arch=sm_90 -lineinfo -o $B/cg_probe $J/cg_probe.cu > $R/build.log 2>&1 && cuobjdump -sass $B/cg_probe > $R/cg_probe.sass
SM=$ROOT/.samples
for s in bf16TensorCoreGemm globalToShmemAsyncCopy; do
  mkdir -p $B/$s
  sed -E -e 's/^#define ([MNK])_TILES [0-9]+/#define \1_TILES 32/' -e 's/int nIter = 100;/int nIter = 2;/' $SM/$s.cu > $B/$s/$s.cu
  (cd $B/$s && nvcc -arch=sm_90 -lineinfo -I$SM/Common -o $s $s.cu >> $R/build.log 2>&1) &
done
wait
log profile
prof() { # name dir cmd...
  local n=$1; shift; local d=$1; shift
  (cd $d && timeout 150 ncu --clock-control none --section SourceCounters --metrics "$M" -f -o $B/$n "$@" > $R/$n.log 2>&1
   timeout 60 ncu -i $B/$n.ncu-rep --csv --page raw --print-units base > $R/$n.raw.csv 2>> $R/$n.log
   timeout 90 ncu -i $B/$n.ncu-rep --csv --page source --print-source sass > $R/$n.source_sass.csv 2>> $R/$n.log)
}
(cd $B && ./cg_probe > $R/cg_cases.txt 2> $R/cg_run.err)
prof cg $B ./cg_probe
log "probe done"
prof bf16 $B/bf16TensorCoreGemm ./bf16TensorCoreGemm
prof g2s0 $B/globalToShmemAsyncCopy ./globalToShmemAsyncCopy -kernel=0 -wA=256 -hA=256 -wB=256 -hB=256
prof g2s1 $B/globalToShmemAsyncCopy ./globalToShmemAsyncCopy -kernel=1 -wA=256 -hA=256 -wB=256 -hB=256
log "repeats"
for i in 1 2 3; do
  (cd $B/bf16TensorCoreGemm && timeout 60 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./bf16TensorCoreGemm > $R/bf16.rep$i.csv 2>/dev/null)
  (cd $B/globalToShmemAsyncCopy && timeout 60 ncu --clock-control none --metrics "$M" --csv --page raw --print-units base ./globalToShmemAsyncCopy -kernel=0 -wA=256 -hA=256 -wB=256 -hB=256 > $R/g2s0.rep$i.csv 2>/dev/null)
done
log done
