#!/usr/bin/env bash
# Fuzzes hibari's decoders with cargo-fuzz (libFuzzer + AddressSanitizer).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Builds every target in fuzz/ once, then runs each (or only the TARGETs
# named) for SECONDS (default 20) and prints one summary line per target.
# Exits non-zero if any target crashes (a panic, a sanitizer report, an
# allocation over -malloc_limit_mb, a timeout or running out of memory).
#
# Targets (fuzz/fuzz_targets/, details in fuzz/README.md):
#   typed_decode    generated Message::from_cdr, re-encode round trip
#   view_decode     zero-copy HasView::view, against the typed decoder
#   dynamic_decode  hibari_dynamic::decode, against the typed decoder, + JSON
#   json_decode     hibari_dynamic::from_json on arbitrary JSON
#   bridge_input    hibari-bridge: TCP framer, rosbridge ops, Foxglove frames
#   rtps_datagram   vendored RustDDS: RTPS parsing, discovery data, reassembly
#
# The test suite (scripts/test.sh) runs 20 s per target. For a real search
# run longer, e.g. an hour per target (the corpus in fuzz/corpus/ is kept
# between runs, so every run starts where the last one stopped):
#   scripts/fuzz.sh 3600
#
# A crash leaves its input in fuzz/artifacts/<target>/crash-<sha1> (the log
# names it). Reproduce, minimize and print it:
#   RUSTC_BOOTSTRAP=1 cargo fuzz run  <target> fuzz/artifacts/<target>/crash-<sha1>
#   RUSTC_BOOTSTRAP=1 cargo fuzz tmin <target> fuzz/artifacts/<target>/crash-<sha1>
#   xxd fuzz/artifacts/<target>/minimized-from-<sha1>
# (the first 2 bytes of an input pick the type: little-endian u16 index into
# hibari_msgs::jazzy::TYPE_NAMES, modulo its length; the rest is the payload).
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`, done by
# scripts/setup.sh). It runs on the stable toolchain through RUSTC_BOOTSTRAP=1
# (cargo-fuzz passes nightly-only -Z flags); on nightly that is harmless.
# Environment: FUZZ_JOBS (default 1) runs that many libFuzzer workers per
# target (-fork), for long runs on a many-core machine. FUZZ_PARALLEL (default:
# the number of CPUs) runs that many targets at once. FUZZ_PROFILE=dev builds
# unoptimized (cargo fuzz --dev): the build takes under half the time and runs
# about a tenth as many inputs a second; the test suite uses it for its short
# regression run. The default, release, is the one for a real search.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export RUSTC_BOOTSTRAP=1

seconds=${1:-20}
shift || true
case $seconds in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "cargo-fuzz not found: install it with 'cargo install cargo-fuzz --locked'" >&2
  echo "(scripts/setup.sh does this)" >&2
  exit 1
fi

all_targets=(typed_decode view_decode dynamic_decode json_decode bridge_input rtps_datagram)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
for t in "${targets[@]}"; do
  [ -d "fuzz/seeds/$t" ] || { echo "unknown target $t (have: ${all_targets[*]})" >&2; exit 2; }
done

log_dir=fuzz/target/fuzz-logs
mkdir -p "$log_dir"

parallel=${FUZZ_PARALLEL:-$(nproc)}
case $parallel in '' | 0 | *[!0-9]*) echo "FUZZ_PARALLEL is a number of targets at once (1 or more), not '$parallel'" >&2; exit 2 ;; esac
case ${FUZZ_PROFILE:-release} in
  release) profile=() ;;
  dev) profile=(--dev) ;;
  *) echo "FUZZ_PROFILE is release or dev, not ${FUZZ_PROFILE}" >&2; exit 2 ;;
esac
printf '\033[1;34m[fuzz]\033[0m building %d targets (cargo fuzz build %s, ASan)\n' \
  "${#all_targets[@]}" "${profile[*]:-(optimized)}"
start=$(date +%s)
cargo fuzz build "${profile[@]}"
printf '\033[1;34m[fuzz]\033[0m build took %ds\n' "$(( $(date +%s) - start ))"

libfuzzer_args=(
  -max_total_time="$seconds"
  -rss_limit_mb=2048
  -malloc_limit_mb=512
  -max_len=65536
  -timeout=30
  -print_final_stats=1
)
jobs=${FUZZ_JOBS:-1}
[ "$jobs" -gt 1 ] && libfuzzer_args+=(-fork="$jobs")

# One target: runs it, then leaves "<status> <runs> <coverage>" in $log.status.
run_target() {
  local t=$1 log=$log_dir/$1.log status runs cov
  mkdir -p "fuzz/corpus/$t"
  # First corpus dir: where new inputs go (gitignored); the seeds are read only.
  if cargo fuzz run "${profile[@]}" "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- "${libfuzzer_args[@]}" >"$log" 2>&1; then
    status=ok
  else
    status=CRASH
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
  [ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n1)
  cov=$(grep -E '^#[0-9]+' "$log" | tail -n1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
  echo "$status ${runs:-?} $cov" >"$log.status"
}

running=0
for t in "${targets[@]}"; do
  rm -f "$log_dir/$t.log.status"
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  printf '\033[1;34m[fuzz]\033[0m %s for %ss (log: %s)\n' "$t" "$seconds" "$log_dir/$t.log"
  run_target "$t" &
  running=$((running + 1))
done
wait

failed=()
summaries=()
for t in "${targets[@]}"; do
  log=$log_dir/$t.log
  read -r status runs cov <"$log.status" || { status=CRASH runs="?" cov="(no status: the run died)"; }
  summaries+=("$(printf '%-15s %-5s %12s runs in %ss  %s' "$t" "$status" "$runs" "$seconds" "$cov")")
  if [ "$status" != ok ]; then
    failed+=("$t")
    grep -A2 -E "panicked at|^thread '|ERROR: libFuzzer|ERROR: AddressSanitizer|==ERROR|out-of-memory|malloc limit|Test unit written to" "$log" | head -n 20 >&2 || true
    echo "  full log: $log" >&2
  fi
done

echo
printf '%s\n' "${summaries[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crash in ${failed[*]}; see the logs above and fuzz/README.md to reproduce" >&2
  exit 1
fi
