#!/bin/bash
# ab.sh <label> <hz> <count>: h2r 6.2 MB, paced 300 MB/s, nice -10
. /work/main/.venv-ros2-jazzy/env.sh; export ROS_DOMAIN_ID=205
B=/work/targets/engine/release/engine-measure
t=ab$RANDOM
a=$(grep Udp: /proc/net/snmp | tail -1 | awk '{print $6}')
(nice -n -10 timeout 60 $ROS2_PYTHON py/img_sub.py /$t $3 2 > /tmp/ab.txt 2>&1 &)
sleep 3
ENGINE_RATE=${ENGINE_RATE:-300000000} nice -n -10 timeout 60 $B pub 205 $t 6220800 $3 $2 2>&1 | grep -v took
for i in $(seq 40); do grep -q RESULT /tmp/ab.txt && break; sleep 0.5; done
b=$(grep Udp: /proc/net/snmp | tail -1 | awk '{print $6}')
echo "$1: $(grep RESULT /tmp/ab.txt) rcvbuferr $((b-a))"
