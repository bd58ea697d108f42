#!/bin/bash
# Issue 35, session 6 (lead): criterion's ptx bench of c4791df (this session's start) and of cf15e6c
# (its end), built on the development VM (`cargo bench -p smem-bench --bench ptx --no-run`, in
# /work/wt/c and /work/wt/lead) and carried in .benchbin; each binary reads the fixtures from the
# path it was built at, made here as links. Three alternating runs on the device's quiet CPU.
set -u
for d in /work/wt/c /work/wt/lead; do
  mkdir -p $d/benches
  [ -e $d/tests ] || ln -s "$PWD/tests" $d/tests
done
nproc; uptime; lscpu | grep "Model name"
for i in 1 2 3; do
  for v in old new; do
    echo "== $v run $i"
    ./.benchbin/ptx_$v --bench --warm-up-time 1 --measurement-time 3 --noplot 2>&1 | grep -E "^ptx|time:|thrpt:"
  done
done
