#!/bin/bash
# usage: run.sh <label> <domain> <data_len> [cases...]; cases: h2r r2h r2r h2h (h=hibari/RustDDS, r=rclpy)
# 160 samples (10 warm-up) at 30 Hz, reliable keep-last 10. Env ENGINE_STOCK=1 for the stock participant.
set -u
label=$1; dom=$2; n=$3; shift 3
cases=${*:-"h2r r2h r2r"}
B=${ENGINE_BIN:-/work/targets/engine/release/engine-measure}
PY=/work/notes/engine/py
. /work/main/.venv-ros2-jazzy/env.sh
export ROS_DOMAIN_ID=$dom
COUNT=160; WARM=10; HZ=30
out=$(mktemp -d)
for c in $cases; do
  topic=engine_${c}_$$_$n
  case $c in
    h2r) sub="timeout 150 $ROS2_PYTHON $PY/img_sub.py /$topic $COUNT $WARM"; pub="timeout 150 $B pub $dom $topic $n $COUNT $HZ";;
    r2h) sub="timeout 150 $B sub $dom $topic $COUNT $WARM"; pub="timeout 150 $ROS2_PYTHON $PY/img_pub.py /$topic $n $COUNT $HZ";;
    r2r) sub="timeout 150 $ROS2_PYTHON $PY/img_sub.py /$topic $COUNT $WARM"; pub="timeout 150 $ROS2_PYTHON $PY/img_pub.py /$topic $n $COUNT $HZ";;
    h2h) sub="timeout 150 $B sub $dom $topic $COUNT $WARM"; pub="timeout 150 $B pub $dom $topic $n $COUNT $HZ";;
  esac
  nice -n ${ENGINE_NICE:-0} $sub > $out/sub.txt 2>$out/sub.err &
  sp=$!
  for i in $(seq 100); do grep -q READY $out/sub.txt 2>/dev/null && break; sleep 0.1; done
  nice -n ${ENGINE_NICE:-0} $pub > $out/pub.txt 2>$out/pub.err &
  pp=$!
  wait $sp; wait $pp
  echo "$label $c $n: $(grep RESULT $out/sub.txt || (echo NO RESULT; tail -3 $out/sub.err))"
done
rm -rf $out
