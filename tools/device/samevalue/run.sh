#!/bin/bash
# Run on the device from the repository root: bash tools/device/samevalue/run.sh
set -u
cd tools/device/samevalue
nvcc -O3 -arch=sm_90 -lineinfo -o samevalue samevalue.cu || exit 1
nvcc -O3 -arch=sm_90 -ptx -o $OUT/samevalue.ptx samevalue.cu
cuobjdump -sass samevalue > $OUT/samevalue.sass
for k in 0 1 2 3 4 5 6 7 8; do
  echo "=== kernel $k" >> $OUT/racecheck.txt
  compute-sanitizer --tool racecheck --racecheck-report all --print-limit 8 ./samevalue $k >> $OUT/racecheck.txt 2>&1
  echo "exit status $?" >> $OUT/racecheck.txt
done
# what compute-sanitizer's own documentation says about values
for d in /usr/local/cuda/compute-sanitizer /usr/local/cuda/extras/compute-sanitizer /usr/local/cuda/share/doc; do
  [ -d "$d" ] && find "$d" -maxdepth 3 \( -name '*.html' -o -name '*.txt' -o -name '*.pdf' -o -name '*.md' \) | head -20 >> $OUT/docs.txt
done
compute-sanitizer --help 2>&1 | grep -i -A3 "racecheck" > $OUT/help.txt
