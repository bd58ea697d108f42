#!/bin/bash
# Issue 33 device job: Nsight Compute's CSV exports (raw, details, source pages)
# of fixtures with both counter families, which counter names exist on sm_90,
# and the launch-check, memcheck and racecheck probes.
#   bash tools/device/ncu33/job.sh      (from the repository root, on the device)
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd $J/../../.. && pwd)
R=/tmp/n33; B=/tmp/n33b; mkdir -p $R $B
log() { echo "[$(date -u +%T) +${SECONDS}s] $*"; }
trap 'tar czf $OUT/ncu33.tar.gz -C $R . ; ls -la $OUT' EXIT
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; nvcc --version | tail -2; ncu --version; compute-sanitizer --version; } > $R/env.txt 2>&1
cat $R/env.txt
timeout 90 ncu --query-metrics --chip gh100 > $R/query.txt 2>&1
grep -E "sass_l1tex|sass_inst_executed_op_(shared|ldsm|ldgsts)|l1tex__data_(pipe_lsu_wavefronts|bank_conflicts_pipe_lsu)_mem_shared" $R/query.txt > $R/query_shared.txt
WANT=""
for n in smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st smsp__sass_inst_executed_op_shared_atom \
         smsp__sass_inst_executed_op_ldsm smsp__sass_inst_executed_op_shared_stsm smsp__sass_inst_executed_op_stsm smsp__sass_inst_executed_op_ldgsts smsp__sass_inst_executed_op_shared_gmma \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts \
         smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts \
         smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_ideal \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts; do
  if grep -q "^$n " $R/query.txt || grep -q "^$n\b" $R/query.txt; then WANT="$WANT,$n.sum"; else echo "absent: $n" >> $R/absent.txt; fi
done
WANT=${WANT#,}; echo "$WANT" > $R/metrics_used.txt; cat $R/absent.txt 2>/dev/null
FIX="transpose_naive_smem transpose_coalesced_padded matmul reduce_interleaved bitonic_sort histogram_atomics ldmatrix_stmatrix cp_async_double_buffer scan_blelloch reverse_dynamic pipeline_memcpy_async vector_widths"
for f in $FIX; do mkdir -p $B/$f; cp $ROOT/tests/data/ptx/$f/$f.cu $ROOT/tests/data/ptx/fx.h $B/$f/; done
log build
for f in $FIX; do (cd $B/$f && nvcc -arch=sm_90 -lineinfo -o $f $f.cu > build.log 2>&1) & done
(cd $J && nvcc -arch=sm_90 -lineinfo -o $B/probes probes.cu && nvcc -o $B/reqntid reqntid.cu -lcuda) > $R/probes_build.log 2>&1 &
wait
for f in $FIX; do
  d=$R/$f; mkdir -p $d; cd $B/$f; log "ncu $f"
  timeout 60 ncu --clock-control none --metrics "$WANT" --csv --page raw --print-units base ./$f > $d/raw_base.csv 2> $d/err.txt
  timeout 60 ncu --clock-control none --metrics "$WANT" --csv --page raw ./$f > $d/raw.csv 2>> $d/err.txt
  timeout 90 ncu --clock-control none --section MemoryWorkloadAnalysis_Tables --section SourceCounters --metrics "$WANT" -f -o $B/$f/rep ./$f > $d/rep.log 2>&1
  timeout 60 ncu -i $B/$f/rep.ncu-rep --csv --page details > $d/details.csv 2>> $d/err.txt
  timeout 60 ncu -i $B/$f/rep.ncu-rep --csv --page details --print-details all > $d/details_all.csv 2>> $d/err.txt
  timeout 60 ncu -i $B/$f/rep.ncu-rep --csv --page source --print-source sass > $d/source_sass.csv 2>> $d/err.txt
  timeout 60 ncu -i $B/$f/rep.ncu-rep --csv --page source --print-source cuda,sass > $d/source_cuda_sass.csv 2>> $d/err.txt
  timeout 60 ncu -i $B/$f/rep.ncu-rep --csv --page source --print-source cuda > $d/source_cuda.csv 2>> $d/err.txt
  timeout 60 ncu -i $B/$f/rep.ncu-rep --page details > $d/details.txt 2>> $d/err.txt
  ./$f > $d/run.txt 2>&1
done
log triton
if [ -f $ROOT/tests/data/ptx/triton_fixtures.py ]; then
  mkdir -p $R/triton; cd $ROOT/tests/data/ptx; export TRITON_CACHE_DIR=/tmp/tc33
  timeout 120 python3 triton_fixtures.py $R/triton/out triton_matmul_w2 triton_softmax triton_matmul > $R/triton/run.txt 2>&1
  timeout 120 ncu --clock-control none --metrics "$WANT" --csv --page raw -k regex:^fx_ python3 triton_fixtures.py - triton_matmul_w2 triton_softmax triton_matmul > $R/triton/raw.csv 2> $R/triton/err.txt
  timeout 120 ncu --clock-control none --section SourceCounters --metrics "$WANT" -k regex:^fx_ -f -o $B/trep python3 triton_fixtures.py - triton_matmul_w2 triton_softmax triton_matmul > $R/triton/rep.log 2>&1
  timeout 60 ncu -i $B/trep.ncu-rep --csv --page details > $R/triton/details.csv 2>> $R/triton/err.txt
  timeout 60 ncu -i $B/trep.ncu-rep --csv --page source --print-source sass > $R/triton/source_sass.csv 2>> $R/triton/err.txt
  timeout 60 ncu -i $B/trep.ncu-rep --csv --page source --print-source ptx > $R/triton/source_ptx.csv 2>> $R/triton/err.txt
fi
log probes
cd $J
cp $B/probes $B/reqntid . 2>/dev/null
{ echo "== memcheck oob"; timeout 60 compute-sanitizer --tool memcheck --print-limit 10 $B/probes oob; echo "exit $?";
  echo "== racecheck ex2"; timeout 60 compute-sanitizer --tool racecheck --racecheck-report all --print-limit 10 $B/probes ex2; echo "exit $?";
  echo "== plain oob"; $B/probes oob; echo "== limits"; $B/probes limits; echo "== reqntid"; $B/reqntid; } > $R/probes.txt 2>&1
nvcc -arch=sm_90 -lineinfo -ptx -o $R/probes.ptx probes.cu 2>>$R/probes_build.log
cat $R/probes.txt
rm -f probes reqntid
log done
