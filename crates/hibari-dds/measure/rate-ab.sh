#!/usr/bin/env bash
# Alternating runs, one host: hibari -> rclpy at each send rate in RATES, then rclpy -> rclpy
# (Fast DDS with its defaults: its SHM), 6,220,800-byte Images at 30 Hz, 150 per run, into the same
# rclpy subscriber (peers/ros2/rclpy_peer.py). Prints p50/p90/max per run, the subscriber's DONE line
# (CPU, context switches) and the host's UDP counters over the run (/proc/net/snmp: datagrams out,
# in, dropped by a full receive buffer). Used for bench-dds.md's "Send rate".
#   REPS=3 RATES="300000000 500000000" DISTRO=jazzy DOM=226 crates/hibari-dds/measure/rate-ab.sh
# SUBPIN / PUBPIN prefix the subscriber / publisher command (e.g. "taskset -c 1", or
# "env GLIBC_TUNABLES=..." as `hibari bench dds` runs rclpy peers: RCLPY_MALLOC there).
# Needs a release build (cargo build --release -p hibari-cli) and scripts/ros2-peer.sh DISTRO.
set -u
cd "$(dirname "$0")/../../.."
. ".venv-ros2-${DISTRO:-jazzy}/env.sh"
dom=${DOM:-226}
run() { # label 'command with TOPIC'
  local label=$1 t=rate_ab_$$_$RANDOM
  grep "^Udp:" /proc/net/snmp | tail -1 > /tmp/rate_ab_snmp0.$$
  ROS_DOMAIN_ID=$dom NETNS_PEER_TIMEOUT=40 timeout 60 ${SUBPIN:-} "$ROS2_PYTHON" peers/ros2/rclpy_peer.py sub $t image:6220800 150 > /tmp/rate_ab_sub.$$ 2>/dev/null &
  local sp=$!
  sleep 1.5
  ROS_DOMAIN_ID=$dom NETNS_PEER_TIMEOUT=40 timeout 60 ${PUBPIN:-} bash -c "${2//TOPIC/$t}" > /dev/null 2>&1 &
  local pp=$!
  wait $sp; grep "^Udp:" /proc/net/snmp | tail -1 > /tmp/rate_ab_snmp1.$$
  kill $pp 2>/dev/null; wait $pp 2>/dev/null
  python3 - "$label" /tmp/rate_ab_sub.$$ /tmp/rate_ab_snmp0.$$ /tmp/rate_ab_snmp1.$$ <<'PY'
import sys
label, sub, s0, s1 = sys.argv[1:]
lines = open(sub).read().splitlines()
lat = sorted(int(l.split('lat_us=')[1].split()[0]) for l in lines if l.startswith('RECV'))
done = [l for l in lines if l.startswith('DONE')]
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] / 1000 if lat else float('nan')
names = [l for l in open('/proc/net/snmp') if l.startswith('Udp:')][0].split()[1:]
d = dict(zip(names, [b - a for a, b in zip(map(int, open(s0).read().split()[1:]), map(int, open(s1).read().split()[1:]))]))
print(f"{label:>18}: n={len(lat)} p50={p(.5):.1f} p90={p(.9):.1f} max={p(1):.1f} ms  udp out={d['OutDatagrams']} in={d['InDatagrams']} rcvbuf_err={d['RcvbufErrors']}  {done[0] if done else 'NO DONE'}")
PY
  rm -f /tmp/rate_ab_sub.$$ /tmp/rate_ab_snmp0.$$ /tmp/rate_ab_snmp1.$$
}
for rep in $(seq "${REPS:-3}"); do
  for rate in ${RATES-300000000 500000000}; do
    HIBARI_DDS_SEND_RATE=$rate run "hibari@$rate" 'target/release/hibari bench --dds-peer "pub TOPIC image:6220800 150 30"'
  done
  run rclpy "\"$ROS2_PYTHON\" peers/ros2/rclpy_peer.py pub TOPIC image:6220800 150 30"
done
