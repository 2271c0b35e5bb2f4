#!/usr/bin/env bash
# Builds everything and runs the main demo. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build
cargo build --release --workspace --bins
exec target/release/hibari demo "$@"
