#!/bin/bash
# Issue 34: criterion's ptx bench of 4101c85 (before issue 34) and of main (0817149), built on the
# development VM and carried; each binary reads the fixtures from the path it was built at.
set -u
mkdir -p /work/wt/old /work/wt/lead
[ -e /work/wt/old/tests ] || ln -s "$PWD/tests" /work/wt/old/tests
[ -e /work/wt/lead/tests ] || ln -s "$PWD/tests" /work/wt/lead/tests
mkdir -p /work/wt/old/benches /work/wt/lead/benches
nproc; uptime; lscpu | grep "Model name"
for i in 1 2 3; do
  for v in old new; do
    echo "== $v run $i"
    ./.benchbin/ptx_$v --bench --warm-up-time 1 --measurement-time 3 --noplot 2>&1 | grep -E "^ptx|time:|thrpt:"
  done
done
