# The job behind tests/data/ptx/{shared_placement,ptxas_merging}: run from the repo root with
# .devjob2/src/ holding shared_placement.cu, ptxas_merging.cu and fx.h; writes to $OUT.
set -x
cd .devjob2/src; R=$OUT; B=/tmp/b; mkdir -p $B
{ nvidia-smi --query-gpu=name,driver_version --format=csv; nvcc --version; } > $R/env.txt 2>&1
for n in shared_placement ptxas_merging; do
  nvcc -arch=sm_90 -lineinfo -ptx -o $R/$n.ptx $n.cu > $R/$n.build.log 2>&1
  nvcc -arch=sm_90 -lineinfo -cubin -Xptxas -v -o $B/$n.cubin $n.cu >> $R/$n.build.log 2>&1
  cuobjdump -sass $B/$n.cubin > $R/$n.sass 2>&1
done
nvcc -arch=sm_90 -lineinfo -o $B/sp shared_placement.cu >> $R/shared_placement.build.log 2>&1
$B/sp > $R/shared_placement.run.txt 2>&1
cat $R/shared_placement.run.txt; grep -n "shared\|smem" $R/*.build.log; grep -n "\.shared" $R/shared_placement.ptx
grep -nE "Function :|LDS|STS" $R/ptxas_merging.sass
