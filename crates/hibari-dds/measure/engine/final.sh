#!/bin/bash
# Final same-session comparison, my processes at nice -10 (others' builds load the 2 cores).
cd /work/notes/engine
export ENGINE_NICE=-10
for n in 1048576 6220800; do
  ENGINE_BIN=/work/targets/engine/release/engine-measure-stock ./run.sh before 207 $n h2r r2h r2r
  ENGINE_RATE=300000000 ENGINE_BURST=131072 ./run.sh after-paced 207 $n h2r r2h h2h r2r
  ./run.sh after-unpaced 207 $n h2r h2h
  ENGINE_STOCK=1 ./run.sh after-2locators 207 $n r2h
  echo "load: $(uptime | sed 's/.*load average: //')"
done
