#!/usr/bin/env bash
# What the `hibari` tools cost, measured on this machine (issue 15's figures):
#   `topic hz` on a 1 kHz topic — the CPU of the hz process (user + system, from
#   /proc/<pid>/stat) over SECONDS, and of the publisher beside it, with the
#   rate hz itself reports.
# Usage: scripts/bench-tools.sh [SECONDS]   (default 10; builds the release binary)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
seconds=${1:-10}
cargo build --release -p hibari-cli --quiet
bin=$PWD/target/release/hibari
# A domain of its own (manual runs use 200..232).
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-217}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }

"$bin" topic pub -r 1000 -p 0 /bench_tools_hz std_msgs/msg/String '{data: tick}' >/dev/null &
pub=$!
sleep 1
"$bin" topic hz /bench_tools_hz >"$tmp/hz.txt" &
hz=$!
sleep 2 # discovery and the first window
hz0=$(cpu $hz); pub0=$(cpu $pub)
sleep "$seconds"
hz1=$(cpu $hz); pub1=$(cpu $pub)
kill -INT $hz; wait $hz || true
kill -INT $pub; wait $pub || true
rate=$(grep -E '^average rate' "$tmp/hz.txt" | tail -1 | awk '{print $3}')
awk -v a="$hz0" -v b="$hz1" -v c="$pub0" -v d="$pub1" -v t="$ticks" -v s="$seconds" -v r="$rate" 'BEGIN {
  printf "topic hz on a 1 kHz topic over %d s: rate reported %s Hz\n", s, r
  printf "  hz process:        %.2f%% of a core\n", 100 * (b - a) / t / s
  printf "  publisher process: %.2f%% of a core\n", 100 * (d - c) / t / s
}'
