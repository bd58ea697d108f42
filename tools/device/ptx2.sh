#!/bin/bash
# Session 2026-11-26 (ptx2), one device call, from the repository root:
#   1. the ptxas merge probes of tests/data/ptx/ptxas_merging_more (compile only:
#      nvcc -ptx, nvcc -cubin -Xptxas -v, cuobjdump -sass);
#   2. the abi3 wheel (target/wheels, built here by maturin, carried) installed
#      with pip --no-deps and tools/device/triton_check.py run on real Triton
#      compiled kernels.
# (This session ran it as .ptx2dev/ptx2.sh with the .cu, the script and the
# wheel copied into that carried scratch folder: D below.)
# Writes to $OUT: env.txt, kernel.ptx, kernel.sass, build.log,
# triton_check.json, triton_check.log (pip and the check), probes.sass, probes.build.log.
set -u
export PATH=/usr/local/cuda/bin:$PATH
R=$(pwd)
D=$(cd "$(dirname "$0")" && pwd)
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version | tail -2;
  cuobjdump --version | tail -1; python3 --version; ldd --version | head -1;
  python3 -c 'import triton, torch; print("triton", triton.__version__, "torch", torch.__version__)'; } > $OUT/env.txt 2>&1
mkdir -p /tmp/probe && cp $D/ptxas_merging_more.cu /tmp/probe/ && cd /tmp/probe
nvcc -arch=sm_90 -lineinfo -ptx -o $OUT/kernel.ptx ptxas_merging_more.cu > $OUT/build.log 2>&1
nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v -o /tmp/probe.cubin ptxas_merging_more.cu >> $OUT/build.log 2>&1
cuobjdump -sass /tmp/probe.cubin > $OUT/kernel.sass 2>&1
cd $R
python3 -m pip install --no-deps --no-index --target /tmp/site $D/smem_model-*.whl >> $OUT/triton_check.log 2>&1
echo "pip exit $?" >> $OUT/triton_check.log
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=/tmp/tcache
timeout 400 python3 $D/triton_check.py $OUT/triton_check.json >> $OUT/triton_check.log 2>&1
echo "triton_check exit $?" >> $OUT/triton_check.log
cat $OUT/env.txt; tail -30 $OUT/triton_check.log; grep -c "Function :" $OUT/kernel.sass
# Second call: the hand-written PTX probes (ptxas alone).
if [ -f $D/probes.ptx ]; then
  ptxas -arch=sm_90 -v $D/probes.ptx -o /tmp/probes.cubin > $OUT/probes.build.log 2>&1
  cuobjdump -sass /tmp/probes.cubin > $OUT/probes.sass 2>&1
  grep -c "Function :" $OUT/probes.sass
fi
# Later calls of the session ran, from the scratch folder holding the files:
#   ptxas -arch=sm_90 -v branches.ptx -o b.cubin; cuobjdump -sass b.cubin   (and loops.ptx likewise)
# and the merge_rules fixture through run.sh:
#   STAGES="probe cuda ncu_cuda sanitize source timing" FIXTURES=merge_rules DEADLINE=400 bash run.sh
#   ONLY=merge_rules python3 tools/device/collect.py RESULTS . JOB_DIR   (then SOURCE_ONLY=1 likewise)
