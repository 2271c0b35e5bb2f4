#!/usr/bin/env bash
# Issue 12's re-measurement: the shared-memory latency sweep of the last note, the
# build before this session (base) and after it (new), interleaved in one session.
set -u
BASE=${BASE:?the release binary built from the commit before}
NEW=${NEW:-target/release/hibari-bench-ipc}
OUT=${OUT:-bench-out/ipc-issue12}
mkdir -p $OUT
for rep in ${REPS:-1 2}; do
  for pl in cross same; do
    for v in base new; do
      bin=$BASE; [ $v = new ] && bin=$NEW
      echo "== rep $rep $pl $v $(date +%T)"
      $bin --placement $pl --modes event --samples 3000 --warmup 300 --wait-quiet-s 30 \
        --json $OUT/$v-$pl-r$rep.json > $OUT/$v-$pl-r$rep.txt 2>&1 || echo "FAILED $v $pl $rep"
    done
  done
done
echo "== done $(date +%T)"
