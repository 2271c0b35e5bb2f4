#!/usr/bin/env bash
# The whole test suite: what CI runs (.ci/run). Installs what it needs first.
#   fmt, clippy -D warnings, cargo tests (unit, integration, doc), the rosbags
#   byte-for-byte cross-check of every bundled type in both distros, the Python
#   package (scripts/python.sh), and a short run of every fuzz target.
# Environment: FUZZ_SECONDS (default 20 per target), CROSSCHECK_SAMPLES (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
# A clean clone gains nothing from incremental compilation, and its caches
# would cost gigabytes of disk (CI has little to spare). Set it to 1 to keep them.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
step() { printf '\n\033[1;32m==> %s\033[0m\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test"
cargo test --workspace 2>&1 | tee target/cargo-test.log
grep -q "test result: ok" target/cargo-test.log

step "rosbags cross-check (pytest)"
cargo build --release -p hibari-crosscheck
HIBARI_CROSSCHECK_BIN="$ROOT/target/release/hibari-crosscheck" \
  "$ROOT/.venv/bin/python" -m pytest -q tests/python 2>&1 | tee target/pytest.log
[ "${PIPESTATUS[0]}" -eq 0 ]

step "Python package (build, stubtest, mypy, pytest)"
scripts/python.sh

step "fuzz targets (${FUZZ_SECONDS:-20}s each)"
scripts/fuzz.sh "${FUZZ_SECONDS:-20}"

step "disk used by build outputs"
du -sh target fuzz/target 2>/dev/null || true

# One closing line for the whole suite: cargo's and pytest's counts added up.
rust=$(grep -Eo '^test result: ok\. [0-9]+ passed' target/cargo-test.log | awk '{s+=$4} END {print s+0}')
py=$(grep -Eho '^[0-9]+ passed' target/pytest.log target/pytest-python.log | awk '{s+=$1} END {print s+0}')
printf '\nsummary: %d passed, 0 failed\n' "$((rust + py))"
