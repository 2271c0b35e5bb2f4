#!/usr/bin/env bash
# The whole test suite: what CI runs (.ci/run). Installs what it needs first.
#   fmt, clippy -D warnings, cargo tests (unit, integration, doc), the loom
#   model of the shared-memory rings and miri over their pure-Rust parts, the rosbags
#   byte-for-byte cross-check of every bundled type in both distros (Rust) and in Jazzy
#   (the generated C++ types, tests/crosscheck_cpp), the interop
#   tests against real rclpy (Jazzy and Kilted, installed by scripts/ros2-peer.sh), the Python
#   package (scripts/python.sh), the C/C++ package with its examples and ctest tests
#   (scripts/cpp.sh test), and a short run of every fuzz target.
# Environment: FUZZ_SECONDS (default 20 per target), FUZZ_PROFILE (default dev:
#   unoptimized; release for an optimized build), CROSSCHECK_SAMPLES (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
# A clean clone gains nothing from incremental compilation, and its caches
# would cost gigabytes of disk (CI has little to spare). Set it to 1 to keep them.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
# Each step's wall time, printed as it ends and as a table at the close: CI
# has 90 minutes and the suite aims at 30, so where the time goes is shown.
timings=()
step_name="" step_start=$SECONDS
end_step() {
  [ -n "$step_name" ] || return 0
  local took=$((SECONDS - step_start))
  timings+=("$(printf '%5d s  %s' "$took" "$step_name")")
  printf '\033[1;32m<== %s: %d s\033[0m\n' "$step_name" "$took"
}
step() {
  end_step
  step_name=$* step_start=$SECONDS
  printf '\n\033[1;32m==> %s\033[0m\n' "$*"
}
# When the suite began (its ROS 2 peers' leftovers are swept at the end).
suite_began=$(date +%s)
step "setup (scripts/setup.sh)"
scripts/setup.sh

# Real ROS 2 (rclpy over Fast DDS from the PyPI wheels) for the interop tests
# (crates/hibari/tests/ros2_interop.rs, python/tests/test_ros2.py), which fail
# without it. Installed when missing, a second's check when present. Both
# distros at once, each its own venv, in the background while fmt and clippy
# run: the time is pip's downloads, clippy's is the CPU's. Their log lines
# only: the environment ros2-peer.sh prints is for interactive use.
peer_logs=$(mktemp -d)
peer_pids=()
for distro in jazzy kilted; do
  scripts/ros2-peer.sh "$distro" >"$peer_logs/$distro" 2>&1 &
  peer_pids+=("$!")
done
# A failing step before the wait below leaves them to finish, not half-installed.
trap 'wait "${peer_pids[@]}" 2>/dev/null || true' EXIT

step "cargo fmt --check"
# The workspace's own crates only: `--all` would also check path dependencies,
# and vendor/ keeps upstream's formatting so its patches stay readable.
cargo fmt -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "ROS 2 Jazzy and Kilted peers (scripts/ros2-peer.sh, started after setup)"
peers_ok=1
for pid in "${peer_pids[@]}"; do
  wait "$pid" || peers_ok=0
done
trap - EXIT
if [ "$peers_ok" -eq 1 ]; then
  for distro in jazzy kilted; do grep -F '[ros2-peer]' "$peer_logs/$distro" || true; done
  rm -rf "$peer_logs"
else
  cat "$peer_logs"/* >&2
  echo "scripts/ros2-peer.sh failed (its output above)" >&2
  exit 1
fi

step "cargo test"
cargo test --workspace 2>&1 | tee target/cargo-test.log
grep -q "test result: ok" target/cargo-test.log

# The shared-memory rings' lock-free protocol, checked beyond what tests can
# reach. Building is not timed; each run is bounded (about a minute here).
step "loom model of the shared-memory rings"
LOOM_TARGET="$ROOT/target/loom" # its own: RUSTFLAGS would rebuild target/
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=$LOOM_TARGET cargo test -q -p hibari-shm --release --lib --no-run
started=$SECONDS
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=$LOOM_TARGET timeout 300 \
  cargo test -p hibari-shm --release --lib loom 2>&1 | tee target/loom.log
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "loom: failed (or over 300 s)" >&2; exit 1; }
echo "loom: pass, $(grep -Eo '[0-9]+ passed' target/loom.log | tail -1) in $((SECONDS - started)) s"

step "miri: hibari-shm's pure-Rust parts (rings over heap memory, protocol)"
# Miri cannot run syscalls (memfd, mmap, sockets): only these tests run. The
# exhaustive truncation test of the protocol takes over 10 minutes under miri;
# it runs natively above.
MIRI_TESTS=(ring:: proto:: pool::tests::size_classes --skip every_truncation)
cargo +nightly miri setup
cargo +nightly miri test -q -p hibari-shm --lib --no-run
started=$SECONDS
timeout 300 cargo +nightly miri test -p hibari-shm --lib -- "${MIRI_TESTS[@]}" 2>&1 | tee target/miri.log
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "miri: failed (or over 300 s)" >&2; exit 1; }
echo "miri: pass, $(grep -Eo '[0-9]+ passed' target/miri.log | tail -1) in $((SECONDS - started)) s"

step "rosbags cross-check (pytest)"
# A debug build: most of it is built above, and the 5,000 round trips take
# seconds either way (a release build of the message types takes minutes).
# The C++ side (tests/crosscheck_cpp/build.py, run by the test) generates the
# Jazzy headers with hibari-cpp-gen and compiles them with g++ (about 25 s on
# 2 cores, and as long again for each header compiled alone; cached under
# target/crosscheck_cpp until a header or source changes), plus ~15 s for the
# Humble types whose definitions differ from Jazzy's (build.py --only; see
# tests/python/test_rosbags_crosscheck_humble_cpp.py).
cargo build -p hibari-crosscheck -p hibari-codegen
HIBARI_CROSSCHECK_BIN="$ROOT/target/debug/hibari-crosscheck" \
HIBARI_CPP_GEN="$ROOT/target/debug/hibari-cpp-gen" \
  "$ROOT/.venv/bin/python" -m pytest -q tests/python 2>&1 | tee target/pytest.log
[ "${PIPESTATUS[0]}" -eq 0 ]

step "Python package (dev build, stubtest, mypy, pytest)"
# tests/test_cli.py drives the `hibari` binary `cargo test` built above
# (building it alone would unify other features and compile it again). The
# extension and the Rust peer are built unoptimized: they reuse most of what
# `cargo test` built (an optimized build was ~4 of the step's ~5 minutes).
HIBARI_PY_PROFILE=dev HIBARI_CLI="$ROOT/target/debug/hibari" scripts/python.sh

step "C and C++ (scripts/cpp.sh test: the CMake package, the examples plain and sanitized, ctest)"
# libhibari and hibari-cpp-gen unoptimized, as `cargo test` built them; the
# examples' cross-language tests use the `hibari` binary and the Python
# package built above, and rclpy from the Jazzy venv.
HIBARI_CARGO_PROFILE=dev scripts/cpp.sh test

step "fuzz targets (${FUZZ_SECONDS:-20}s each, ${FUZZ_PROFILE:-dev} build)"
# Unoptimized (FUZZ_PROFILE=dev): a regression run over the seeds and the
# corpus plus a short search, built in under half the time of an optimized
# build; the search worth the name is `scripts/fuzz.sh 3600` (optimized).
FUZZ_PROFILE=${FUZZ_PROFILE:-dev} scripts/fuzz.sh "${FUZZ_SECONDS:-20}"

end_step
step_name=""
# Fast DDS leaves the shared memory of the ROS 2 peers the tests kill in
# /dev/shm (~100 MB a run): what no process holds locked since the suite began goes.
target/debug/examples/sweep_fastdds_shm "$suite_began"
printf '\ndisk used by build outputs:\n'
du -sh target fuzz/target 2>/dev/null || true

# One closing line for the whole suite: cargo's and pytest's counts added up.
rust=$(grep -Eo '^test result: ok\. [0-9]+ passed' target/cargo-test.log | awk '{s+=$4} END {print s+0}')
py=$(grep -Eho '^[0-9]+ passed' target/pytest.log target/pytest-python.log | awk '{s+=$1} END {print s+0}')
cpp=$(grep -Eho 'tests passed, 0 tests failed out of [0-9]+' target/cpp/ctest-*.log | awk '{s+=$NF} END {print s+0}')
printf '\nwall time by step:\n'
printf '  %s\n' "${timings[@]}"
printf '  %5d s  in all\n' "$SECONDS"
printf '\nsummary: %d passed, 0 failed\n' "$((rust + py + cpp))"
