#!/bin/bash
# The device job: build, measure and check every fixture; raw outputs only
# (collect.py, run here, turns them into tests/data/ptx and tests/data/device).
#   STAGES="probe cuda ncu_cuda triton ncu_triton occ sanitize" bash .devjob/run.sh
set -u
J=$(cd "$(dirname "$0")" && pwd)
R=/tmp/fxres
B=/tmp/fxbuild
mkdir -p $R/cuda $R/triton $R/logs $R/occ $B
STAGES=${STAGES:-probe cuda ncu_cuda ncu_repeat triton ncu_triton occ sanitize timing}
DEADLINE=${DEADLINE:-545}
FIXTURES=${FIXTURES:-$(cd $J/cuda && ls *.cu | sed 's/\.cu$//' | tr '\n' ' ')}
export PATH=/usr/local/cuda/bin:$PATH
log() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }
rem() { echo $(( DEADLINE - SECONDS )); }
want() { case " $STAGES " in *" $1 "*) [ "$(rem)" -gt 25 ] || { log "skip $1: out of time"; return 1; } ;; *) return 1 ;; esac; }
finish() {
  log "packing"
  cp $J/run.sh $J/metrics.py $R/logs/ 2>/dev/null
  tar czf $OUT/results.tar.gz -C $R . && ls -la $OUT
  grep -h "FXCHECK\|FXFAIL" $R/cuda/*/run.txt $R/logs/triton_run.txt 2>/dev/null | sort | uniq -c | head -40
}
trap finish EXIT

if want probe; then
  log probe
  { date -u; nvidia-smi; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total,compute_cap --format=csv;
    nvcc --version; ncu --version; compute-sanitizer --version; cuobjdump --version | tail -2;
    python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__, "cuda", torch.version.cuda)';
    ls -la /usr/local/cuda/include/cuda_occupancy.h; grep -n "CUDA_OCC_MAJOR\|CUDA_OCC_MINOR" /usr/local/cuda/include/cuda_occupancy.h | head;
    uname -a; nproc; } > $R/env.txt 2>&1
  cat $R/env.txt | head -60
  timeout 60 ncu --query-metrics --chip gh100 > $R/ncu_query_metrics.txt 2>&1 || timeout 60 ncu --query-metrics > $R/ncu_query_metrics.txt 2>&1
  timeout 60 ncu --query-metrics-mode all --chip gh100 > $R/ncu_query_metrics_all.txt 2>&1
  grep -i "shared\|pred_on\|ldsm\|ldgsts" $R/ncu_query_metrics.txt > $R/ncu_query_shared.txt
  grep -ci "pred_on" $R/ncu_query_metrics_all.txt
fi
python3 $J/metrics.py $R/ncu_query_metrics.txt > $R/metrics.txt 2>$R/logs/metrics.err
MET=$(sed -n 1p $R/metrics.txt); MIN=$(sed -n 2p $R/metrics.txt)
echo "$MET" | tr ',' '\n' | wc -l

compile_one() {
  n=$1; d=$R/cuda/$n; mkdir -p $d; cd $J/cuda
  nvcc -arch=sm_90 -lineinfo -ptx -o $d/kernel.ptx $n.cu > $d/nvcc.log 2>&1 || echo "ptx failed" >> $d/nvcc.log
  nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v -o $B/$n.cubin $n.cu >> $d/nvcc.log 2>&1 || echo "cubin failed" >> $d/nvcc.log
  cuobjdump -sass $B/$n.cubin > $d/kernel.sass 2>&1
  nvdisasm --print-line-info --print-code $B/$n.cubin > $d/kernel.nvdisasm.txt 2>&1
  nvcc -arch=sm_90 -lineinfo -o $B/$n $n.cu >> $d/nvcc.log 2>&1 || echo "exe failed" >> $d/nvcc.log
}
export -f compile_one; export R B J

if want cuda; then
  log "compile ${FIXTURES}"
  echo $FIXTURES | tr ' ' '\n' | grep . | timeout $(rem) xargs -P 16 -I{} bash -c 'compile_one {}'
  for n in $FIXTURES; do
    (cd $R/cuda/$n && timeout 30 $B/$n > run.txt 2>&1; echo "exit $?" >> run.txt)
  done
  grep -h FXCHECK $R/cuda/*/run.txt
fi
if want occ; then
  # Builds only, in the background while the GPU is profiled.
  ( cd $J/occ && nvcc -O2 -o $B/occ_calc occ_calc.cu > $R/occ/build_calc.log 2>&1
    for r in 16 24 32 40 48 64 72 96 128 168 255; do
      nvcc -O3 -arch=sm_90 -maxrregcount=$r -DREGS=$r -Xptxas -v -o $B/occ_rt_$r occ_rt.cu > $R/occ/build_rt_$r.log 2>&1 &
    done
    for r in 128 152 168 200 232 255; do
      nvcc -O3 -arch=sm_90 -maxrregcount=$r -DREGS=$r -DNLIVE=200 -Xptxas -v -o $B/occ_rt_n200_$r occ_rt.cu > $R/occ/build_rt_n200_$r.log 2>&1 &
    done; wait ) &
  OCCBUILD=$!
fi
if want ncu_cuda; then
  for n in $FIXTURES; do
    [ "$(rem)" -gt 30 ] || { log "ncu: out of time at $n"; break; }
    d=$R/cuda/$n
    log "ncu $n"
    timeout 90 ncu --clock-control none --metrics "$MET" --csv --page raw --print-units base $B/$n > $d/ncu.csv 2> $d/ncu.err
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q '^"ID"' $d/ncu.csv; then
      mv $d/ncu.csv $d/ncu_full_failed.csv 2>/dev/null
      log "ncu $n full list failed (rc $rc); minimal list"
      timeout 60 ncu --clock-control none --metrics "$MIN" --csv --page raw --print-units base $B/$n > $d/ncu.csv 2> $d/ncu.err
    fi
  done
fi
if want ncu_repeat; then
  # Run-to-run spread of the counters (arbitration): matmul twice more.
  for i in 2 3; do
    d=$R/cuda/matmul
    timeout 90 ncu --clock-control none --metrics "$MET" --csv --page raw --print-units base $B/matmul > $d/ncu.r$i.csv 2> $d/ncu.r$i.err
    d=$R/cuda/matmul_one_block
    timeout 90 ncu --clock-control none --metrics "$MET" --csv --page raw --print-units base $B/matmul_one_block > $d/ncu.r$i.csv 2> $d/ncu.r$i.err
  done
fi
if want triton; then
  log triton
  export TRITON_CACHE_DIR=/tmp/tcache
  (cd $J/triton && timeout $(( $(rem) - 20 )) python3 triton_fixtures.py $R/triton > $R/logs/triton_run.txt 2>&1)
  grep -h "FXCHECK\|FXFAIL" $R/logs/triton_run.txt; tail -5 $R/logs/triton_run.txt
fi
if want ncu_triton; then
  log "ncu triton"
  export TRITON_CACHE_DIR=/tmp/tcache
  (cd $J/triton && timeout $(( $(rem) - 20 )) ncu --clock-control none --metrics "$MET" --csv --page raw --print-units base -k regex:^fx_ python3 triton_fixtures.py - > $R/triton/ncu.csv 2> $R/logs/triton_ncu.err)
  grep -c '^"' $R/triton/ncu.csv
fi
if want occ; then
  log "occ run"
  wait $OCCBUILD
  $B/occ_calc > $R/occ/occupancy_calculator.jsonl 2> $R/occ/calc.err
  wc -l $R/occ/occupancy_calculator.jsonl
  for r in 16 24 32 40 48 64 72 96 128 168 255; do
    [ "$(rem)" -gt 20 ] || break
    [ -x $B/occ_rt_$r ] && timeout 60 $B/occ_rt_$r >> $R/occ/occupancy_runtime.jsonl 2>> $R/occ/rt.err
  done
  for r in 128 152 168 200 232 255; do
    [ "$(rem)" -gt 20 ] || break
    [ -x $B/occ_rt_n200_$r ] && timeout 60 $B/occ_rt_n200_$r >> $R/occ/occupancy_runtime.jsonl 2>> $R/occ/rt.err
  done
  wc -l $R/occ/occupancy_runtime.jsonl
fi
if want sanitize; then
  log sanitize
  san_one() {
    n=$1; d=$R/cuda/$n
    for tool in racecheck synccheck; do
      extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
      (cd $d && timeout 120 compute-sanitizer --tool $tool $extra --print-limit 40 $B/$n > $d/$tool.txt 2>&1; echo "exit status $?" >> $d/$tool.txt)
    done
  }
  export -f san_one
  echo $FIXTURES | tr ' ' '\n' | grep . | timeout $(( $(rem) - 5 )) xargs -P 8 -I{} bash -c 'san_one {}'
  grep -h "SUMMARY" $R/cuda/*/racecheck.txt $R/cuda/*/synccheck.txt | sort | uniq -c
fi
if want source; then
  # Per-instruction counters (ncu's source page: SASS with CUDA lines), for
  # the model's per-instruction / per-line tallies.
  for n in $FIXTURES; do
    [ "$(rem)" -gt 30 ] || break
    d=$R/cuda/$n
    timeout 90 ncu --clock-control none --section SourceCounters -f -o $d/src $B/$n > $d/src.log 2>&1
    timeout 60 ncu -i $d/src.ncu-rep --page source --csv --print-source cuda,sass > $d/source_cuda_sass.csv 2>> $d/src.log
    timeout 60 ncu -i $d/src.ncu-rep --page source --csv --print-source sass > $d/source_sass.csv 2>> $d/src.log
    timeout 60 ncu -i $d/src.ncu-rep --page source --csv --print-source cuda > $d/source_cuda.csv 2>> $d/src.log
    rm -f $d/src.ncu-rep
  done
  export TRITON_CACHE_DIR=/tmp/tcache
  if [ "$(rem)" -gt 60 ]; then
    (cd $J/triton && timeout 120 ncu --clock-control none --section SourceCounters -k regex:^fx_ -f -o $R/triton/src python3 triton_fixtures.py - > $R/triton/src.log 2>&1
     timeout 60 ncu -i $R/triton/src.ncu-rep --page source --csv --print-source sass > $R/triton/source_sass.csv 2>> $R/triton/src.log
     timeout 60 ncu -i $R/triton/src.ncu-rep --page source --csv --print-source ptx > $R/triton/source_ptx.csv 2>> $R/triton/src.log
     rm -f $R/triton/src.ncu-rep)
  fi
  ls -la $R/cuda/matmul/ | grep source; head -c 1500 $R/cuda/matmul/source_sass.csv; tail -3 $R/cuda/matmul/src.log
fi
if want timing; then
  # How long ncu takes to profile each launch (issue 22 item 6): the plain run,
  # ncu with the 9 shared-memory counters, and ncu with the section that shows
  # bank conflicts. Wall seconds, one run each.
  KEYM=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  now() { date +%s.%N; }
  for n in $FIXTURES; do
    [ "$(rem)" -gt 30 ] || break
    a=$(now); timeout 60 $B/$n > /dev/null 2>&1; b=$(now)
    timeout 90 ncu --clock-control none --metrics $KEYM $B/$n > /dev/null 2>&1; c=$(now)
    timeout 90 ncu --clock-control none --section MemoryWorkloadAnalysis_Tables $B/$n > $R/cuda/$n/ncu_mwa.txt 2>&1; d=$(now)
    echo "{\"fixture\": \"$n\", \"run_s\": $(awk "BEGIN{print $b - $a}"), \"ncu_counters_s\": $(awk "BEGIN{print $c - $b}"), \"ncu_section_s\": $(awk "BEGIN{print $d - $c}")}" >> $R/timing.jsonl
  done
  export TRITON_CACHE_DIR=/tmp/tcache
  for n in triton_softmax triton_layer_norm triton_matmul triton_matmul_w2 triton_transpose triton_colsum; do
    [ "$(rem)" -gt 40 ] || break
    a=$(now); (cd $J/triton && timeout 60 python3 triton_fixtures.py - $n > /dev/null 2>&1); b=$(now)
    (cd $J/triton && timeout 90 ncu --clock-control none --metrics $KEYM -k regex:^fx_ python3 triton_fixtures.py - $n > /dev/null 2>&1); c=$(now)
    echo "{\"fixture\": \"$n\", \"run_s\": $(awk "BEGIN{print $b - $a}"), \"ncu_counters_s\": $(awk "BEGIN{print $c - $b}")}" >> $R/timing.jsonl
  done
  cat $R/timing.jsonl | tail -40
fi
log done
