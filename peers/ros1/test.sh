#!/usr/bin/env bash
# Smoke test of the ROS 1 peer: one short cell per pairing (roscpp→roscpp with and without
# tcpNoDelay, rospy→roscpp, roscpp→rospy, 20 messages at 50 Hz) through a private roscore; each
# must receive every message it was sent. Builds the peers first when the packages are installed.
# Skips (exit 0, says so) when Debian's ROS 1 packages are not installed, so CI can call it
# unconditionally; HIBARI_REQUIRE_ROS1=1 turns the skip into a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! scripts/ros1-peer.sh --check 2>/dev/null; then
  msg="SKIP peers/ros1/test.sh: ROS 1 packages not installed (scripts/ros1-peer.sh installs them)"
  if [ "${HIBARI_REQUIRE_ROS1:-0}" = 1 ]; then echo "${msg/SKIP/FAIL}" >&2; exit 1; fi
  echo "$msg"; exit 0
fi
scripts/ros1-peer.sh --no-install >/dev/null 2>&1 || scripts/ros1-peer.sh --no-install  # show why it failed

fail=0
check() {  # check <name> <run.sh args...>
  local name=$1; shift
  local out
  out=$(peers/ros1/run.sh --count 20 --warmup 5 --rate 50 "$@") || { echo "FAIL $name: run.sh exited $?"; fail=1; return; }
  /usr/bin/python3 - "$name" "$out" <<'PY' || fail=1
import json, sys
name, out = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
bad = [r for r in recs if not (r["ok"] and r["sent"] == 20 and r["received"] == r["sent"] and r["lost"] == 0
       and r["p50_us"] is not None and r["p50_us"] > 0 and r["sub"]["duplicates"] == 0)]
if len(recs) != 1 or bad:
    print(f"FAIL {name}: {out}")
    sys.exit(1)
r = recs[0]
print(f"ok   {name}: {r['received']}/{r['sent']} received, {r['size_bytes']} B, p50 {r['p50_us']:.0f} µs")
PY
}
check "laser roscpp->roscpp"            --type laser --ranges 1000
check "laser roscpp->roscpp tcpNoDelay" --type laser --ranges 1000 --tcp-nodelay
check "image roscpp->roscpp"            --type image --width 64 --height 48
check "jpeg roscpp->roscpp"             --type jpeg --width 64 --height 48 --quality 30
check "bytes rospy->roscpp"             --type bytes --size 4096 --pub py
check "laser rospy->rospy"              --type laser --ranges 100 --pub py --sub py
check "bytes roscpp->rospy"             --type bytes --size 4096 --sub py
exit $fail
