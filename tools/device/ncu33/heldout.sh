#!/bin/bash
# Issue 33, held-out check: public PTX kernels (../shared/ptx-corpus, copied into
# .heldout/ and carried) launched on the device as heldout.txt lists them, each
# measured with both counter families and checked by racecheck and synccheck.
#   bash tools/device/ncu33/heldout.sh     (repository root, on the device)
set -u
export PATH=/usr/local/cuda/bin:$PATH
J=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd $J/../../.. && pwd)
R=/tmp/ho; mkdir -p $R
trap 'tar czf $OUT/heldout.tar.gz -C $R . ; ls -la $OUT' EXIT
WANT=$(cat $ROOT/tests/data/ncu/metrics_used.txt)
nvcc -o /tmp/launch_ptx $J/launch_ptx.cu -lcuda > $R/build.log 2>&1 || { cat $R/build.log; exit 1; }
i=0
while read -r file kernel grid block dyn args; do
  [ -z "$file" ] && continue
  i=$((i + 1)); d=$R/$i; mkdir -p $d
  echo "$file $kernel $grid $block $dyn $args" > $d/launch.txt
  cd $ROOT/.heldout
  timeout 60 /tmp/launch_ptx $file $kernel $grid $block $dyn $args > $d/run.txt 2>&1
  timeout 90 ncu --clock-control none --metrics "$WANT" --csv --page raw /tmp/launch_ptx $file $kernel $grid $block $dyn $args > $d/raw.csv 2> $d/err.txt
  timeout 90 compute-sanitizer --tool racecheck --racecheck-report all --print-limit 10 /tmp/launch_ptx $file $kernel $grid $block $dyn $args > $d/racecheck.txt 2>&1; echo "exit status $?" >> $d/racecheck.txt
  timeout 60 compute-sanitizer --tool synccheck --print-limit 10 /tmp/launch_ptx $file $kernel $grid $block $dyn $args > $d/synccheck.txt 2>&1; echo "exit status $?" >> $d/synccheck.txt
  echo "== $i $kernel: $(cat $d/run.txt | tail -1) | $(grep SUMMARY $d/racecheck.txt) | $(grep SUMMARY $d/synccheck.txt)"
done < $J/heldout.txt
