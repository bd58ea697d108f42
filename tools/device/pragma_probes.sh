#!/bin/sh
# Compiles the `.pragma "nounroll"` probes of tests/data/ptx/ptxas_pragmas
# with ptxas for sm_90 and writes their SASS (static: which loops ptxas
# unrolled and merged shows in the instructions, no launch is needed).
# Run on the device machine from the directory holding pragmas.ptx and
# module.ptx; results go to $OUT (default: the current directory).
set -eu
out=${OUT:-.}
ptxas --version > "$out/env.txt"
for f in pragmas module; do
    ptxas -arch=sm_90 -v "$f.ptx" -o "$out/$f.cubin" > "$out/$f.build.log" 2>&1
    cuobjdump -sass "$out/$f.cubin" > "$out/$f.sass"
    rm "$out/$f.cubin"
done
