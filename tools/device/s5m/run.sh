#!/bin/bash
# Issue 34 (helper M, session 5): compute-sanitizer's racecheck and synccheck on
# cp.async completed through cp.async.mbarrier.arrive without .noinc (and accesses
# to a copy's bytes across a bar.sync or before it), and on bulk/tensor stores whose
# shared source is rewritten before cp.async.bulk.wait_group.read. Cases: probe.cu.
#   bash tools/device/s5m/run.sh OUTDIR     (on the device machine; < 60 s, offline)
# Writes under OUTDIR: env.txt, build.log, probe.ptx, probe.sass, log.txt, and per
# case san/run_CASE.txt (plain run: waits, out, g), san/racecheck_CASE.txt,
# san/synccheck_CASE.txt (host backtraces off), each ending "rc=N".
set -u
O=${1:?output directory}; mkdir -p "$O/san"
O=$(cd "$O" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd); B=$(mktemp -d /tmp/s5m.XXXX)
log() { echo "[$(date -u +%T) +${SECONDS}s] $*" | tee -a "$O/log.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; compute-sanitizer --version; date -u; } > "$O/env.txt" 2>&1
log build
( cd "$D" && nvcc -arch=sm_90a -lineinfo -o "$B/probe" probe.cu -L/usr/local/cuda/lib64/stubs -lcuda > "$O/build.log" 2>&1; echo "rc=$?" >> "$O/build.log" ) &
( cd "$D" && nvcc -arch=sm_90a -lineinfo -ptx -o "$O/probe.ptx" probe.cu >> "$O/build_ptx.log" 2>&1 ) &
wait
[ -x "$B/probe" ] || { log "build failed"; exit 1; }
cuobjdump -sass "$B/probe" > "$O/probe.sass" 2>&1
log built
CASES=$("$B/probe" list)
RC="--tool racecheck --racecheck-report all --racecheck-detect-level info --show-backtrace no"
SC="--tool synccheck --show-backtrace no"
# Every (tool, case) pair, spread over 6 lanes; each bounded to 15 s, none started past 45 s.
lane() {  # lane index, lanes
  local i=0 tool c f
  for tool in run racecheck synccheck; do
    for c in $CASES; do
      i=$((i+1)); [ $((i % $2)) -eq $1 ] || continue
      f="$O/san/${tool}_$c.txt"
      [ $SECONDS -gt 45 ] && { echo "skipped (time)" > "$f"; continue; }
      case $tool in
        run) timeout 15 "$B/probe" "$c" > "$f" 2>&1 ;;
        racecheck) timeout 15 compute-sanitizer $RC "$B/probe" "$c" > "$f" 2>&1 ;;
        synccheck) timeout 15 compute-sanitizer $SC "$B/probe" "$c" > "$f" 2>&1 ;;
      esac
      echo "rc=$?" >> "$f"
    done
  done
}
for l in 0 1 2 3 4 5; do lane $l 6 & done
wait
log "all done"
grep -H "SUMMARY" "$O"/san/*check_*.txt > "$O/summary.txt" 2>/dev/null
rm -rf "$B"
