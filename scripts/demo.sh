#!/usr/bin/env bash
# The main demo: builds hibari and runs `hibari bench all --quick`, the headline comparison
# (hibari in one process and between processes beside stock ROS 2 (rclpy and native rcl over
# Fast DDS, from PyPI's Jazzy wheels), iceoryx2, the ROS 1 peer and the write-ups' published
# figures; a few minutes). Installs what the build and the ROS 2 peer need first (the wheels
# take ~20 s the first time).
#   scripts/demo.sh               build, then `hibari bench all --quick --out target/bench-quick`
#   scripts/demo.sh --zenoh       also build raw Zenoh into the latency sweep (the first build
#                                 takes minutes: hibari-bench-ipc --features zenoh)
#   scripts/demo.sh ARGS…         other arguments go to `hibari bench` instead of the default
# Idempotent: cargo rebuilds only what changed; the ROS 1 peer is rebuilt only when its
# sources changed, and used only when scripts/ros1-peer.sh installed it.
set -euo pipefail
cd "$(dirname "$0")/.."
zenoh=0
args=()
for a in "$@"; do
  case "$a" in
    --zenoh) zenoh=1 ;;
    *) args+=("$a") ;;
  esac
done
log() { printf '\033[1;34m[demo]\033[0m %s\n' "$*" >&2; }

scripts/setup.sh --build
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --workspace --bins
# e2-bridge runs the bridge's example when it builds; the bench says so when it does not.
cargo build --release -p hibari-bridge --example e2_bridge \
  || log "the e2_bridge example did not build; e2-bridge will say it is not available"
if [ "$zenoh" = 1 ]; then
  # Its own cargo call, so the `hibari` binary never links Zenoh.
  start=$(date +%s)
  cargo build --release -p hibari-bench-ipc --features zenoh
  log "hibari-bench-ipc with Zenoh built in $(( $(date +%s) - start )) s"
fi
# The Python package and E4's Rust twin, so that e4-python runs in the demo too.
scripts/python.sh --build-only \
  || log "the Python package did not build; e4-python will say it is not available"
# Stock ROS 2 beside hibari in every experiment: the Jazzy wheels and the native peer.
scripts/ros2-peer.sh jazzy >/dev/null \
  || log "the ROS 2 peer could not be installed (above); the bench runs without ROS 2 and says so"
if scripts/ros1-peer.sh --check >/dev/null 2>&1; then
  scripts/ros1-peer.sh --no-install >/dev/null
else
  log "ROS 1 peer not installed: run scripts/ros1-peer.sh to see ROS 1 beside hibari"
fi
[ ${#args[@]} -gt 0 ] || args=(all --quick --out "$TARGET/bench-quick")
exec "$TARGET/release/hibari" bench "${args[@]}"
