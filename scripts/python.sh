#!/usr/bin/env bash
# Builds the Python package into the project venv and runs its checks:
#   maturin develop --release (the extension module, hibari._hibari),
#   the Rust peers the tests and the bench use (python/rust/examples),
#   mypy.stubtest (the .pyi against the built module), mypy on the package,
#   pytest (python/tests).
#   scripts/python.sh            build + stubtest + mypy + tests
#   scripts/python.sh --bench    also run python/bench/e4.py (Python vs Rust, E4)
#   scripts/python.sh --build-only   only the two builds (scripts/demo.sh uses this)
# HIBARI_PY_PROFILE=dev builds both unoptimized (scripts/test.sh: they reuse
# what `cargo test --workspace` built, where a release build takes ~4 minutes);
# default release, for the demo and the bench.
# Needs the venv of scripts/setup.sh (maturin, numpy, mypy, pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
step() { printf '\n\033[1;32m==> %s\033[0m\n' "$*"; }
profile=${HIBARI_PY_PROFILE:-release}
case $profile in
  release) release=(--release) out=release ;;
  dev) release=() out=debug ;;
  *) echo "HIBARI_PY_PROFILE must be release or dev, not '$profile'" >&2; exit 2 ;;
esac
if [ "${1:-}" = "--bench" ] && [ "$profile" = dev ]; then
  echo "--bench measures the release build: leave HIBARI_PY_PROFILE unset" >&2
  exit 2
fi

if ! "$VENV/bin/python" -c 'import maturin, numpy, mypy, pytest' >/dev/null 2>&1; then
  step "pip install maturin numpy mypy pytest (a venv made before scripts/setup.sh listed them)"
  "$VENV/bin/pip" install -q 'maturin>=1.5,<2' numpy mypy pytest
fi

step "maturin develop ${release[*]} (hibari._hibari, $profile build)"
(cd python && VIRTUAL_ENV=$VENV "$VENV/bin/maturin" develop "${release[@]}" --quiet)

step "cargo build ${release[*]} -p hibari-py --examples (the Rust peer and the E4 twin)"
cargo build "${release[@]}" -p hibari-py --examples --quiet

[ "${1:-}" = "--build-only" ] && exit 0

step "mypy.stubtest hibari._hibari and mypy python/hibari (side by side)"
# Each is one process on one core; together they take the time of the longer.
checks=$(mktemp -d)
trap 'rm -rf "$checks"' EXIT
(cd python && "$VENV/bin/python" -m mypy.stubtest hibari._hibari >"$checks/stubtest" 2>&1) &
stubtest=$!
# (its own cache: two mypy processes must not write one)
(cd python && "$VENV/bin/python" -m mypy hibari --ignore-missing-imports --no-error-summary \
  --cache-dir .mypy_cache/package >"$checks/mypy" 2>&1) &
mypy=$!
status=0
wait "$stubtest" || { echo "mypy.stubtest failed:"; status=1; }
cat "$checks/stubtest"
wait "$mypy" || { echo "mypy failed:"; status=1; }
cat "$checks/mypy"
[ "$status" -eq 0 ]

step "pytest python/tests"
mkdir -p "$ROOT/target"
# The `hibari` command tests/test_cli.py drives: HIBARI_CLI when given (the
# test suite passes the one `cargo test` built), else built here.
if [ -z "${HIBARI_CLI:-}" ]; then
  cargo build -p hibari-cli --quiet
  HIBARI_CLI="$CARGO_TARGET_DIR/debug/hibari"
fi
(cd python && HIBARI_PY_PEER="$CARGO_TARGET_DIR/$out/examples/peer" HIBARI_CLI="$HIBARI_CLI" \
  "$VENV/bin/python" -m pytest -q -rs tests) 2>&1 | tee "$ROOT/target/pytest-python.log"
[ "${PIPESTATUS[0]}" -eq 0 ]

if [ "${1:-}" = "--bench" ]; then
  step "E4: Python vs Rust in one process"
  (cd python && "$VENV/bin/python" bench/e4.py --json "$CARGO_TARGET_DIR/bench/e4-python.json")
fi
