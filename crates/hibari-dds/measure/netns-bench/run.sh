#!/bin/bash
# One-way latency across two network namespaces (veth, MTU 1500; the same topology as
# hibari-testkit's netns::NetnsPair), hibari (DdsTransport, release build) and rclpy (Jazzy,
# rmw_fastrtps_cpp: UDP across, each namespace has its own machine-id) in every direction.
# usage: run.sh PEER_BIN [count] [sizes...]   (root; PEER_BIN = the release netns_peer example of hibari-dds: cargo build --release -p hibari-dds --example netns_peer)
# Latency: the publisher stamps header.stamp with CLOCK_REALTIME just before publish; the
# subscriber takes now - stamp when its callback/take has the decoded Image (one clock: one
# machine). 30 Hz, reliable keep-all, volatile; the first 10 samples are warm-up.
set -u
BIN=$1; COUNT=${2:-160}; shift 2 2>/dev/null; SIZES=${*:-64 1048576 6220800}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=$HERE/../../../../peers/ros2/rclpy_peer.py
VENV=/work/main/.venv-ros2-jazzy
A=hbench-a-$$; B=hbench-b-$$
cleanup() { for n in $A $B; do ip netns pids $n 2>/dev/null | xargs -r kill -9; ip netns del $n 2>/dev/null; rm -rf /etc/netns/$n; done; }
trap cleanup EXIT
ip netns add $A; ip netns add $B
ip link add veth0 netns $A mtu 1500 type veth peer name veth0 netns $B mtu 1500
ip -n $A addr add 10.231.0.1/30 dev veth0; ip -n $B addr add 10.231.0.2/30 dev veth0
for n in $A $B; do
  ip -n $n link set lo up; ip -n $n link set veth0 up; ip -n $n route add 224.0.0.0/4 dev veth0
  mkdir -p /etc/netns/$n; head -c16 /dev/urandom | od -An -tx1 | tr -d ' \n' > /etc/netns/$n/machine-id; echo >> /etc/netns/$n/machine-id
done
export NETNS_PEER_TIMEOUT=$((COUNT / 30 + 40)) ROS_DOMAIN_ID=231
unset ROS_AUTOMATIC_DISCOVERY_RANGE ROS_STATIC_PEERS
# rclpy's malloc as `hibari bench dds` runs it (crates/hibari-bench/src/dds.rs RCLPY_MALLOC)
RCLPY_MALLOC=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456
peer() { # ns side role... -> runs in the foreground
  local ns=$1 side=$2; shift 2
  if [ "$side" = hibari ]; then ip netns exec $ns "$BIN" "$@"
  else ip netns exec $ns env GLIBC_TUNABLES=$RCLPY_MALLOC bash -c '. "$0/env.sh" && exec "$ROS2_PYTHON" "$@"' $VENV $PY "$@"; fi
}
printf '| %-16s | %9s | %8s | %9s | %9s | %9s | %s |\n' "pub -> sub" size recv "p50 ms" "p99 ms" "max ms" "veth TX MB"
for size in $SIZES; do
  for pair in ${PAIRS:-"rclpy:rclpy" "hibari:hibari" "hibari:rclpy" "rclpy:hibari"}; do
    set -- ${pair/:/ }; topic=/bench_${1}_${2}_$size
    out=$(mktemp); tx0=$(ip -n $A -s -j link show veth0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["bytes"])')
    timeout $((NETNS_PEER_TIMEOUT + 20)) bash -c "$(declare -f peer); BIN=$BIN PY=$PY VENV=$VENV RCLPY_MALLOC=$RCLPY_MALLOC; peer $B $2 sub $topic image:$size $COUNT" > $out 2>/dev/null &
    sub=$!
    sleep 2  # the subscriber's READY is not awaited here: it only has to exist before matching ends
    timeout $((NETNS_PEER_TIMEOUT + 20)) bash -c "$(declare -f peer); BIN=$BIN PY=$PY VENV=$VENV RCLPY_MALLOC=$RCLPY_MALLOC; peer $A $1 pub $topic image:$size $COUNT 30" > /dev/null 2>&1 &
    pub=$!
    wait $sub; kill -9 $pub 2>/dev/null; wait $pub 2>/dev/null
    ip netns pids $A | xargs -r kill -9; ip netns pids $B | xargs -r kill -9
    tx1=$(ip -n $A -s -j link show veth0 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["bytes"])')
    python3 - "$out" "$1 -> $2" $size $COUNT $(( (tx1 - tx0) / 1000000 )) <<'PY'
import sys
path, what, size, count, tx = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = [dict(w.split("=") for w in l.split()[1:]) for l in open(path) if l.startswith("RECV")]
lat = sorted(int(r["lat_us"]) / 1000 for r in rows if int(r["seq"]) > 10)
exact = sum(r["exact"] == "1" for r in rows)
q = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))] if lat else float("nan")
print(f"| {what:16} | {size:9} | {len(lat):3}/{count - 10:<4} | {q(.5):9.2f} | {q(.99):9.2f} | {(lat[-1] if lat else float('nan')):9.2f} | {tx} (exact {exact}/{len(rows)}) |", flush=True)
PY
    rm -f $out
  done
done
