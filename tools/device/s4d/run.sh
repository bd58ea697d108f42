#!/bin/bash
# Issue 34 (helper D) device job: wmma lowering, wgmma operand reads, stmatrix and
# cp.async (LDGSTS) wavefronts on sm_90. Usage: bash run.sh OUTDIR (from anywhere).
# Writes everything into OUTDIR; keeps to about 4 minutes (ncu chunks stop at a budget).
set -u
OUT=${1:?usage: run.sh OUTDIR}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
J=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
B=$(mktemp -d /tmp/s4d.XXXX)
BUDGET=${BUDGET:-215}   # seconds after which no new ncu chunk starts
log() { echo "[$(date -u +%T) +${SECONDS}s] $*" | tee -a "$OUT/log.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; ncu --version; } > "$OUT/env.txt" 2>&1
log start
# builds (parallel); SASS of every build kept
( nvcc ${NVCC_FLAGS:-} -arch=sm_90 -DARCH=90 -lineinfo -o $B/wmma_probe $J/wmma_probe.cu > $OUT/build_wmma.log 2>&1 && cuobjdump -sass $B/wmma_probe > $OUT/wmma_sm90.sass
  nvcc ${NVCC_FLAGS:-} -arch=sm_90 -DARCH=90 -ptx -o $OUT/wmma_sm90.ptx $J/wmma_probe.cu >> $OUT/build_wmma.log 2>&1 ) &
( nvcc -gencode arch=compute_90a,code=sm_90a -lineinfo -o $B/wgmma_probe $J/wgmma_probe.cu > $OUT/build_wgmma.log 2>&1 && cuobjdump -sass $B/wgmma_probe > $OUT/wgmma_sm90a.sass
  nvcc -gencode arch=compute_90a,code=sm_90a -ptx -o $OUT/wgmma_sm90a.ptx $J/wgmma_probe.cu >> $OUT/build_wgmma.log 2>&1 ) &
( nvcc -arch=sm_90 -lineinfo -o $B/async_probe $J/async_probe.cu > $OUT/build_async.log 2>&1 && cuobjdump -sass $B/async_probe > $OUT/async_sm90.sass ) &
for a in 75 80; do  # CUDA 13 has no sm_70 (its SASS: tools/device/s4d/sass_sm70, CUDA 12)
  ( nvcc ${NVCC_FLAGS:-} -arch=sm_$a -DARCH=$a -cubin -o $B/wmma_sm$a.cubin $J/wmma_probe.cu > $OUT/build_wmma_sm$a.log 2>&1 && cuobjdump -sass $B/wmma_sm$a.cubin > $OUT/wmma_sm$a.sass ) &
done
( timeout 100 ncu --query-metrics --chip gh100 > $B/query.txt 2>&1 ) &
wait
log built; ls -la $B >> $OUT/log.txt
# metric lists, kept to the names this ncu knows
pick() { local w=""; for n in "$@"; do if grep -q "^$n " $B/query.txt; then w="$w,$n.sum"; else echo "absent: $n" >> $OUT/absent.txt; fi; done; echo "${w#,}"; }
S=smsp__sass_inst_executed_op; W=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op; C=smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op
L=l1tex__data_pipe_lsu_wavefronts_mem_shared_op; LC=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op
M_WMMA=$(pick ${S}_shared_ld ${S}_shared_st ${S}_ldsm ${S}_generic_ld ${S}_generic_st ${S}_shared ${W}_ld ${W}_st ${W}_ldsm ${C}_ldsm ${L}_ld ${L}_st ${LC}_ld ${LC}_st smsp__sass_inst_executed_op_global_st)
M_WG=$(pick ${S}_shared_gmma sm__sass_inst_executed_op_shared_gmma sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma ${L}_gmma ${LC}_gmma ${S}_shared_ld ${W}_ld ${L}_ld smsp__inst_executed_pipe_uniform)
M_AS=$(pick ${S}_ldgsts ${S}_ldgsts_cache_access ${S}_ldgsts_cache_bypass ${W}_ldgsts ${W}_ldgsts_cache_access ${W}_ldgsts_cache_bypass \
  ${C}_ldgsts ${C}_ldgsts_cache_access ${C}_ldgsts_cache_bypass ${S}_shared_stsm ${W}_stsm ${C}_stsm ${L}_st ${LC}_st ${L}_ld \
  smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts \
  smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass \
  smsp__sass_l1tex_t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access smsp__sass_l1tex_m_xbar2l1tex_read_sectors_mem_global_op_ldgsts_cache_bypass \
  l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write)
printf "wmma %s\nwgmma %s\nasync %s\n" "$M_WMMA" "$M_WG" "$M_AS" > $OUT/metrics_used.txt
cp $B/query.txt $OUT/query_full.txt 2>/dev/null
# plain runs: the case lists (launch index = ncu row order) and the wmma fragment maps
cd $B
./async_probe > $OUT/async_cases.txt 2> $OUT/async_run.err
./wgmma_probe > $OUT/wgmma_cases.txt 2> $OUT/wgmma_run.err
./wmma_probe ncu > $OUT/wmma_cases.txt 2> $OUT/wmma_run.err
./wmma_probe map > $OUT/wmma_map.txt 2> $OUT/wmma_map.err
log "plain runs done: $(wc -l < $OUT/async_cases.txt) async, $(wc -l < $OUT/wgmma_cases.txt) wgmma, $(wc -l < $OUT/wmma_cases.txt) wmma launches"
# ncu in chunks of launches, so a budget cut keeps what was measured
chunks() {  # name binary-args metrics total chunk
  local name=$1 args=$2 m=$3 total=$4 step=$5 s=0
  while [ $s -lt $total ]; do
    if [ $SECONDS -ge $BUDGET ]; then log "budget: $name stopped at launch $s of $total"; echo "$name $s $total" >> $OUT/cut.txt; return; fi
    timeout 120 ncu --csv --page raw --print-units base --metrics "$m" --launch-skip $s --launch-count $step \
      ./$args > $OUT/ncu_${name}_$(printf %04d $s).csv 2> $OUT/ncu_${name}_$(printf %04d $s).err
    log "ncu $name $s+$step rc=$?"
    s=$((s + step))
  done
}
chunks async "async_probe" "$M_AS" $(wc -l < $OUT/async_cases.txt) 80
chunks wgmma "wgmma_probe" "$M_WG" $(wc -l < $OUT/wgmma_cases.txt) 100
chunks wmma "wmma_probe ncu" "$M_WMMA" $(wc -l < $OUT/wmma_cases.txt) 120
log done
rm -rf $B
