#!/usr/bin/env bash
# Builds E4's C++ twin (cpp/bench/e4_cpp.cpp) against the hibari that
# scripts/cpp.sh installed, into target/cpp/bench/e4_cpp (Release, -O2):
#   cpp/bench/build.sh [--prefix DIR]     (default DIR: target/cpp/prefix)
# python/bench/e4.py then runs it beside e4_rust (its --cpp option).
# Measure a release libhibari: scripts/cpp.sh install (HIBARI_CARGO_PROFILE unset).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
prefix=$ROOT/target/cpp/prefix
if [ "${1:-}" = "--prefix" ]; then prefix=$(realpath -m "$2"); fi
[ -f "$prefix/lib/cmake/hibari/hibariConfig.cmake" ] \
  || { echo "no hibari installed in $prefix: run scripts/cpp.sh install" >&2; exit 1; }
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
out=$ROOT/target/cpp/bench
cmake -S cpp/bench -B "$out" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out"
echo "built $out/e4_cpp"
