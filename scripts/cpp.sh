#!/usr/bin/env bash
# hibari for C and C++: builds and installs libhibari, its headers, the C++
# types of the bundled ROS 2 packages, hibari-cpp-gen and the CMake and
# pkg-config files (cpp/CMakeLists.txt), then optionally builds the examples
# against the installed copy and runs their tests. Idempotent: a second run
# rebuilds nothing that did not change.
#   scripts/cpp.sh install [--prefix DIR]   (default DIR: target/cpp/prefix)
#   scripts/cpp.sh test                     install into target/cpp/prefix, then build
#       cpp/examples from a clean folder twice — plainly and with AddressSanitizer
#       and UBSan — and run ctest on both
# Environment: HIBARI_CARGO_PROFILE (release by default; scripts/test.sh uses
#   dev, reusing what `cargo test` built), HIBARI_DISTRO (jazzy).
# Needs cmake, a C/C++ compiler and Python 3 (apt-get installs them when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
step() { printf '\n\033[1;32m==> %s\033[0m\n' "$*"; }
die() { printf '\033[1;31m[cpp] error:\033[0m %s\n' "$*" >&2; exit 1; }

mode=${1:-}
[ -n "$mode" ] && shift
prefix=$ROOT/target/cpp/prefix
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$(realpath -m "$2"); shift 2 ;;
    *) die "unknown argument '$1' (scripts/cpp.sh install|test [--prefix DIR])" ;;
  esac
done
case "$mode" in
  install|test) ;;
  *) die "usage: scripts/cpp.sh install [--prefix DIR] | scripts/cpp.sh test" ;;
esac
profile=${HIBARI_CARGO_PROFILE:-release}
distro=${HIBARI_DISTRO:-jazzy}

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v c++ >/dev/null || missing+=(g++)
command -v python3 >/dev/null || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get install -y -q "${missing[@]}"
fi
generator=(); command -v ninja >/dev/null && generator=(-G Ninja)

build=$ROOT/target/cpp/build-$profile
step "cmake: libhibari ($profile), C++ types of the bundled $distro packages → $prefix"
cmake -S cpp -B "$build" "${generator[@]}" -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DHIBARI_CARGO_PROFILE="$profile" -DHIBARI_DISTRO="$distro" >/dev/null
cmake --build "$build"
cmake --install "$build" >/dev/null
echo "installed in $prefix: find_package(hibari) with CMAKE_PREFIX_PATH=$prefix, or pkg-config with PKG_CONFIG_PATH=$prefix/lib/pkgconfig"
[ "$mode" = test ] || exit 0

out=debug; [ "$profile" = release ] && out=release
cli=$ROOT/target/$out/hibari
if [ ! -x "$cli" ]; then
  step "cargo build --profile $profile -p hibari-cli (the Rust side of the tests)"
  cargo build --profile "$profile" -p hibari-cli --bin hibari
fi
py=$ROOT/.venv/bin/python
"$py" -c 'import hibari' 2>/dev/null || die "the Python side needs hibari in .venv: run scripts/python.sh --build-only"
ros2_env=$ROOT/.venv-ros2-jazzy/env.sh
[ -f "$ros2_env" ] || die "the rclpy side needs ROS 2 Jazzy: run scripts/ros2-peer.sh jazzy"

for variant in plain sanitized; do
  dir=$ROOT/target/cpp/examples-$variant
  sanitize=OFF; [ "$variant" = sanitized ] && sanitize=ON
  step "cpp/examples ($variant) from a clean build folder, then ctest"
  rm -rf "$dir"
  cmake -S cpp/examples -B "$dir" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHIBARI_SANITIZE=$sanitize -DHIBARI_CLI="$cli" -DHIBARI_PYTHON="$py" \
    -DHIBARI_ROS2_ENV="$ros2_env" >/dev/null
  cmake --build "$dir"
  ctest --test-dir "$dir" --output-on-failure -j2 2>&1 | tee "$ROOT/target/cpp/ctest-$variant.log"
  [ "${PIPESTATUS[0]}" -eq 0 ]
done
