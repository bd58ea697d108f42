#!/bin/bash
# Issue 34 items 5-7 (helper E, session 4): TMA/bulk copy layouts, mbarrier
# verdicts of compute-sanitizer, distributed shared memory counters.
#   bash tools/device/s4e/run.sh OUTDIR     (on the device machine; < 4 min)
# Writes everything under OUTDIR: env.txt, build logs, SASS and PTX of each probe,
# tma_results.txt (layouts), ncu_*.csv (counters), san/<tool>_<case>.txt (sanitizer).
set -u
O=${1:?output directory}; mkdir -p "$O/san" "$O/sass"
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd); B=$(mktemp -d /tmp/s4e.XXXX)
log() { echo "[$(date -u +%T) +${SECONDS}s] $*" | tee -a "$O/log.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; ncu --version; compute-sanitizer --version; date -u; } > "$O/env.txt" 2>&1
log build
for p in tma mbar cluster; do
  ( cd $D && nvcc -arch=sm_90a -lineinfo -o $B/$p $p.cu -L/usr/local/cuda/lib64/stubs -lcuda > "$O/build_$p.log" 2>&1
    nvcc -arch=sm_90a -lineinfo -ptx -o "$O/sass/$p.ptx" $p.cu >> "$O/build_$p.log" 2>&1
    cuobjdump -sass $B/$p > "$O/sass/$p.sass" 2>&1 ) &
done
( timeout 90 ncu --query-metrics --chip gh100 > "$O/query.txt" 2>&1 ) &
wait
log built; ls -la $B >> "$O/log.txt"

# (a) layouts
# One process per config: a config that faults must not take the others with it.
( cd $B && for c in $(./tma list); do
    timeout 10 ./tma dump $c >> "$O/tma_results.txt" 2>> "$O/tma_results.err"; echo "$c rc=$?" >> "$O/tma_results.err"
  done )
log "tma dump done"

# (c) sanitizer verdicts, in the background (4 lanes) while ncu runs.
CASES=$(cd $B && ./mbar list)
san_lane() {  # tool, lane, nlanes
  local i=0
  for c in $CASES; do
    i=$((i+1)); [ $((i % $3)) -eq $2 ] || continue
    [ $SECONDS -gt 200 ] && { echo "skipped (time)" > "$O/san/$1_$c.txt"; continue; }
    case $1 in
      run) (cd $B && timeout 20 ./mbar $c > "$O/san/run_$c.txt" 2>&1; echo "rc=$?" >> "$O/san/run_$c.txt") ;;
      synccheck) (cd $B && timeout 20 compute-sanitizer --tool synccheck --show-backtrace no ./mbar $c > "$O/san/synccheck_$c.txt" 2>&1; echo "rc=$?" >> "$O/san/synccheck_$c.txt") ;;
      racecheck) (cd $B && timeout 20 compute-sanitizer --tool racecheck --racecheck-report all --racecheck-detect-level info --show-backtrace no ./mbar $c > "$O/san/racecheck_$c.txt" 2>&1; echo "rc=$?" >> "$O/san/racecheck_$c.txt") ;;
      memcheck) (cd $B && timeout 20 compute-sanitizer --tool memcheck --show-backtrace no ./mbar $c > "$O/san/memcheck_$c.txt" 2>&1; echo "rc=$?" >> "$O/san/memcheck_$c.txt") ;;
    esac
  done
}
( san_lane run 0 1; san_lane synccheck 0 2 ) &
( san_lane synccheck 1 2 ) &
( san_lane racecheck 0 2 ) &
( san_lane racecheck 1 2 ) &
( cd $B && timeout 30 compute-sanitizer --tool racecheck --racecheck-report all --racecheck-detect-level info --show-backtrace no ./cluster all > "$O/san/racecheck_cluster_all.txt" 2>&1
  timeout 30 compute-sanitizer --tool synccheck --show-backtrace no ./cluster all > "$O/san/synccheck_cluster_all.txt" 2>&1
  timeout 30 compute-sanitizer --tool racecheck --racecheck-report all --racecheck-detect-level info --show-backtrace no ./tma ncu > "$O/san/racecheck_tma_ncu.txt" 2>&1 ) &

# (b)+(d) counters. Core: the instruction- and unit-level shared counters (names
# checked against --query-metrics); extended: every dshared/gds/tma counter gh100 has.
grep -i -E 'dshared|gds' "$O/query.txt" > "$O/query_dshared_gds.txt"
grep -i -E 'tma|mbar|syncs|cga|dsmem' "$O/query.txt" > "$O/query_tma_mbar.txt"
CORE=""
for n in smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st smsp__sass_inst_executed_op_shared_atom \
  smsp__sass_inst_executed_op_ldsm smsp__sass_inst_executed_op_shared_stsm smsp__sass_inst_executed_op_ldgsts smsp__sass_inst_executed_op_shared_gmma \
  smsp__sass_inst_executed_op_generic_ld smsp__sass_inst_executed_op_generic_st smsp__sass_inst_executed_op_generic_atom \
  smsp__sass_inst_executed_op_global_ld smsp__sass_inst_executed_op_global_st smsp__sass_inst_executed_op_shared smsp__sass_inst_executed_op_generic \
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld \
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom \
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal \
  l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc l1tex__data_pipe_lsu_wavefronts_mem_lgds l1tex__data_bank_conflicts_pipe_lsu_mem_gds \
  l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld l1tex__m_l1tex2xbar_write_bytes_mem_global_op_tma_st smsp__inst_executed; do
  grep -q "^$n\b" "$O/query.txt" && CORE="$CORE,$n.sum" || echo "absent: $n" >> "$O/absent.txt"
done
CORE=${CORE#,}
awk '$2 == "Counter" && $1 ~ /^[a-z_0-9]*(dshared|gds|tma|dsmem)[a-z_0-9]*$/ {print $1}' "$O/query.txt" | sort -u | grep -v -E 'realtime|lookup|multicast|cycles|sectors|replayed|hit|miss' > "$O/metrics_ext.txt"
echo "$CORE" > "$O/metrics_used.txt"
for p in "tma ncu" "mbar counters" "cluster all"; do
  n=${p%% *}; log "ncu core $p"
  ( cd $B && timeout 45 ncu --clock-control none --metrics "$CORE" --csv --page raw --print-units base ./$p > "$O/ncu_${n}.csv" 2> "$O/ncu_${n}.err" )
done
split -l 40 "$O/metrics_ext.txt" $B/ext_
for p in "cluster all" "tma ncu"; do
  n=${p%% *}
  for f in $B/ext_*; do
    [ $SECONDS -gt 185 ] && { log "skip ext $p $f (time)"; continue; }
    E=$(sed 's/$/.sum/' $f | paste -sd,); echo "$E" >> "$O/metrics_used.txt"; log "ncu ext $p $(basename $f)"
    ( cd $B && timeout 35 ncu --clock-control none --metrics "$E" --csv --page raw --print-units base ./$p > "$O/ncu_${n}_$(basename $f).csv" 2> "$O/ncu_${n}_$(basename $f).err" )
  done
done
log "ncu done"
wait
log "all done"
rm -rf $B
