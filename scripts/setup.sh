#!/usr/bin/env bash
# Installs what hibari's build, demo and tests need. Idempotent: every step
# checks first and does nothing when the thing is already there.
#   scripts/setup.sh          everything the test suite needs
#   scripts/setup.sh --build  only what building (Rust and the Python package) and the demo need
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
mode=${1:-}

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

# --- Rust -------------------------------------------------------------------
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; else
    echo "cargo not found: install Rust (rustup) first" >&2; exit 1; fi
fi
for comp in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$comp"; then
    log "rustup component add $comp"; rustup component add "$comp" || true
  fi
done

# --- Debian packages ----------------------------------------------------------
need_apt=()
# g++: the rosbags cross-check compiles the generated C++ message types.
{ command -v cc && command -v g++; } >/dev/null 2>&1 || need_apt+=(build-essential)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-venv)
# libjpeg(-turbo) for the native ROS 2 peer's JPEG series (scripts/ros2-peer.sh builds it).
[ -f /usr/include/jpeglib.h ] || need_apt+=(libjpeg-dev)
if [ "$mode" != "--build" ]; then
  # The bridge's browser test drives Debian's Chromium; its JS peers need Node.
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  command -v npm >/dev/null 2>&1 || need_apt+=(nodejs npm)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

# --- Python: the package's build (maturin, numpy), the rosbags oracle and test
#     tools, in a project venv (the demo builds the Python package too) ---------
VENV=$ROOT/.venv
if [ ! -x "$VENV/bin/python" ]; then
  log "python3 -m venv .venv"; python3 -m venv "$VENV"
fi
want_py="rosbags==0.11.9 mcap mcap-ros2-support pytest maturin>=1.5,<2 numpy mypy roslibpy==2.1.0"
if ! "$VENV/bin/python" -c 'import rosbags, mcap, mcap_ros2, pytest, maturin, numpy, mypy, roslibpy' >/dev/null 2>&1 \
   || [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("rosbags"))')" != "0.11.9" ]; then
  log "pip install $want_py"; "$VENV/bin/pip" install -q $want_py
fi

[ "$mode" = "--build" ] && exit 0

# --- npm: the bridge's real client peers (roslibjs, Foxglove ws-protocol) ----
JS=$ROOT/crates/hibari-bridge/tests/js
if [ ! -d "$JS/node_modules/roslib" ] || [ ! -d "$JS/node_modules/@foxglove/ws-protocol" ]; then
  log "npm ci (bridge test peers)"; (cd "$JS" && npm ci --no-audit --no-fund --silent)
fi

# --- nightly with miri (the test suite runs hibari-shm's pure-Rust parts under it)
if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  log "rustup toolchain install nightly"; rustup toolchain install nightly --profile minimal
fi
for comp in miri rust-src; do
  if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^$comp"; then
    log "rustup component add $comp --toolchain nightly"; rustup component add "$comp" --toolchain nightly
  fi
done

# --- cargo-fuzz (the fuzz targets run on stable with RUSTC_BOOTSTRAP=1) -------
if ! command -v cargo-fuzz >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo-fuzz" ]; then
  log "cargo install cargo-fuzz"; cargo install cargo-fuzz --locked -q
fi
log "ready"
