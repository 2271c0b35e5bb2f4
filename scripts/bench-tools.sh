#!/usr/bin/env bash
# What the `hibari` tools cost, measured on this machine (issue 15's figures).
#   hz [SECONDS]      `topic hz` on a 1 kHz topic: the CPU of the hz process (user +
#                     system, from /proc/<pid>/stat) over SECONDS (default 10), and of
#                     the publisher beside it, with the rate hz itself reports.
#   record [SECONDS] [PRESET]
#                     `bag record` of a 1080p RGB camera at 30 Hz and a 100 Hz
#                     LaserScan (the sensor_load example) for SECONDS (default 60),
#                     with --storage-preset-profile PRESET when given (fastwrite,
#                     zstd_fast, zstd_small):
#                     messages sent against recorded, the recorder's CPU, its write
#                     rate, and a plain sequential write of as many bytes to the
#                     same disk in the same run. Needs ~190 MB of disk per second.
#                     Both start from a clean page cache (synced and dropped, when
#                     this runs as root): with 11 GB of the recording's pages still
#                     cached, the plain write's CPU varied 3x from run to run.
#                     The plain write is one 64 KiB buffer written over and over
#                     (the recorder's write size; a 1 MiB one, beyond the 512 KiB
#                     L2 of a core here, took ~55% more CPU for the same bytes),
#                     then fdatasync (dd from /dev/zero would add the kernel's
#                     zeroing of every block it reads to the plain side); once
#                     flat out, once paced like the recording (30 bursts a second
#                     over SECONDS; ~15% more CPU than flat out here).
# Builds the release binaries first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
mode=${1:-hz}
cargo build --release -p hibari-cli --quiet
cargo build --release -p hibari --example sensor_load --quiet
bin=$PWD/target/release/hibari
# A domain of its own (manual runs use 200..232).
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-217}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
clean_page_cache() {
  sync
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 >/proc/sys/vm/drop_caches; fi
}

if [ "$mode" = record ]; then
  seconds=${2:-60}
  dir=$PWD/target/bench-tools
  rm -rf "$dir" && mkdir -p "$dir"
  preset=()
  [ -n "${3:-}" ] && preset=(--storage-preset-profile "$3")
  clean_page_cache
  "$bin" bag record -o "$dir/bag" "${preset[@]}" /camera/image_raw /scan >"$tmp/record.txt" 2>&1 &
  rec=$!
  sleep 1
  rec0=$(cpu $rec) user0=$(awk '{print $14}' "/proc/$rec/stat")
  start=$(date +%s.%N)
  target/release/examples/sensor_load --seconds "$seconds" >"$tmp/sent.txt"
  sleep 1 # the last samples reach the recorder
  rec1=$(cpu $rec) user1=$(awk '{print $14}' "/proc/$rec/stat")
  kill -INT $rec; wait $rec || true
  end=$(date +%s.%N)
  bytes=$(du -sb "$dir/bag" | cut -f1)
  "$bin" bag info "$dir/bag" --json >"$tmp/info.json"
  images=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next(t["count"] for t in d["topics"] if t["name"]=="/camera/image_raw"))' "$tmp/info.json")
  scans=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(next(t["count"] for t in d["topics"] if t["name"]=="/scan"))' "$tmp/info.json")
  echo "$(cat "$tmp/sent.txt"); recorded images $images scans $scans"
  # The same number of bytes written sequentially, then synced: flat out,
  # and paced as the recording was (30 bursts a second over SECONDS).
  rm -rf "$dir/bag"
  plain() { # PACE_SECONDS (0: flat out) -> "wall user system" of the writer
    clean_page_cache
    /usr/bin/time -f "%e %U %S" -o "$tmp/plain.time" python3 -c '
import os, sys, time
block = bytes(range(256)) * 256
blocks, pace = int(sys.argv[2]), float(sys.argv[3])
ticks = max(1, int(pace * 30))
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
start, done = time.monotonic(), 0
for tick in range(ticks):
    if pace:
        time.sleep(max(0.0, start + tick / 30 - time.monotonic()))
    upto = blocks * (tick + 1) // ticks
    while done < upto:
        os.write(fd, block)
        done += 1
os.fdatasync(fd)
os.close(fd)' "$dir/plain" $((bytes / 65536)) "$1"
    rm -f "$dir/plain"
    cat "$tmp/plain.time"
  }
  read -r fs fu fk <<<"$(plain 0)"
  read -r ps pu pk <<<"$(plain "$seconds")"
  awk -v a="$rec0" -v b="$rec1" -v t="$ticks" -v s="$seconds" -v by="$bytes" -v st="$start" -v en="$end" \
      -v fs="$fs" -v fu="$fu" -v fk="$fk" -v ps="$ps" -v pu="$pu" -v pk="$pk" -v u="$((user1 - user0))" 'BEGIN {
    r = (b - a) / t
    printf "recorder CPU: %.1f%% of a core (%.1f s over %d s: user %.1f s, system %.1f s)\n", \
      100 * r / s, r, s, u / t, r - u / t
    printf "bag: %.2f GB, written at %.1f MB/s over the recording\n", by / 1e9, by / 1e6 / (en - st)
    printf "plain write of the same bytes, flat out (64 KiB writes, synced): %.1f s = %.1f MB/s, CPU %.1f s (user %.1f s, system %.1f s)\n", fs, by / 1e6 / fs, fu + fk, fu, fk
    printf "plain write of the same bytes, paced like the recording: %.1f s, CPU %.1f s (user %.1f s, system %.1f s)\n", ps, pu + pk, pu, pk
    printf "recorder CPU / plain write CPU: %.2fx (flat out), %.2fx (paced)\n", r / (fu + fk), r / (pu + pk)
  }'
  rm -rf "$dir"
  exit 0
fi
seconds=${2:-10}
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
