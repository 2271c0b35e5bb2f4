#!/usr/bin/env bash
# Installs real ROS 2 (rclpy over rmw_fastrtps_cpp / Fast DDS, and rcl's C headers and libraries)
# from PyPI's ros-<distro>-* wheels into its own virtualenv, .venv-ros2-<distro> at the repo root,
# and writes .venv-ros2-<distro>/env.sh with what a caller needs. Idempotent: the venv is created
# and the wheels installed only when the packages do not already import at the pinned versions.
#   scripts/ros2-peer.sh [jazzy|kilted]           install what is missing, print the environment
#   scripts/ros2-peer.sh [jazzy|kilted] --check   install nothing; exit 1 and say what is missing
# Then: `. .venv-ros2-jazzy/env.sh` and run "$ROS2_PYTHON" (rclpy) or "$ROS2_RCL_PEER", the native
# peer (peers/ros2/rcl_peer.c, C against rcl and the message packages' C type support) this script
# builds into .venv-ros2-<distro>/bin/rcl_peer whenever its sources are newer (cc and libjpeg-dev,
# which it installs with apt-get when missing). Build another with
# `cc ... $ROS2_CFLAGS ... $ROS2_LDFLAGS -lrcl ...`. Environment: PYTHON (default python3; the
# wheels exist for CPython 3.10 to 3.13, one set per Python version).
# Jazzy is rclpy 7.1 over Fast DDS 2.14, Kilted rclpy 9.1 over Fast DDS 3. Both distros name their
# dependencies ros-rclpy, ros-rcl, ... without the distro, so each needs its own venv.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
distro=jazzy
mode=

log() { printf '\033[1;34m[ros2-peer]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[ros2-peer] error:\033[0m %s\n' "$*" >&2; exit 1; }

for arg in "$@"; do
  case "$arg" in
    jazzy|kilted) distro=$arg ;;
    --check) mode=$arg ;;
    *) die "unknown argument '$arg' (use jazzy, kilted, --check)" ;;
  esac
done

# The wheels: rclpy pulls rcl, rmw, rosidl and the core interfaces; rmw-fastrtps-cpp pulls Fast DDS
# (libfastrtps 2.14 / libfastdds 3) and Fast CDR. Versions pinned so every run measures the same.
case "$distro" in
  jazzy)  PIN=(rclpy==7.1.6 rmw-fastrtps-cpp==8.4.3 std-msgs==5.3.6 sensor-msgs==5.3.6 std-srvs==5.3.6 test-msgs==2.0.3) ;;
  kilted) PIN=(rclpy==9.1.2 rmw-fastrtps-cpp==9.3.3 std-msgs==5.5.1 sensor-msgs==5.5.1 std-srvs==5.5.1 test-msgs==2.3.0) ;;
esac
WHEELS=()
for p in "${PIN[@]}"; do WHEELS+=("ros-$distro-$p"); done

VENV=$ROOT/.venv-ros2-$distro
PY=$VENV/bin/python

# True when every pinned wheel is installed and the Python packages import.
installed() {
  [ -x "$PY" ] || return 1
  "$PY" - "${WHEELS[@]}" <<'EOF' >/dev/null 2>&1
import sys, importlib.metadata as m
for spec in sys.argv[1:]:
    name, version = spec.split("==")
    if m.version(name) != version:
        sys.exit(1)
import rclpy, std_msgs.msg, sensor_msgs.msg, std_srvs.srv, test_msgs.msg  # noqa: E401,F401
EOF
}

if ! installed; then
  [ "$mode" = "" ] || die "ROS 2 $distro is not installed in $VENV
  install it with: scripts/ros2-peer.sh $distro   (pip install ${WHEELS[*]})"
  PYTHON=${PYTHON:-python3}
  command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (the ROS 2 wheels need CPython 3.10-3.13)"
  if [ ! -x "$PY" ]; then
    log "$PYTHON -m venv .venv-ros2-$distro"
    "$PYTHON" -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  fi
  log "pip install ${WHEELS[*]}"
  start=$SECONDS
  "$VENV/bin/pip" install -q --disable-pip-version-check "${WHEELS[@]}" \
    || die "pip install failed (the wheels are manylinux_2_28 x86_64/aarch64, CPython 3.10-3.13)"
  log "installed in $((SECONDS - start)) s"
  installed || die "ROS 2 $distro installed but rclpy or the message packages do not import in $VENV"
fi

# --- env.sh: what a process outside the venv's python needs -----------------------------------
# The venv is an ament install prefix: lib/ holds librcl.so, librmw_fastrtps_cpp.so, Fast DDS and
# every lib<pkg>__rosidl_*.so; include/<pkg>/ the C headers; share/ the ament index. The wheels'
# own vendored libraries (OpenSSL, tinyxml2, lttng, yaml, spdlog) sit in site-packages/ros_*.libs.
# The venv's python finds them by itself (ros_wheels_bootstrapper.pth re-executes it once with
# LD_LIBRARY_PATH set); a native program needs LD_LIBRARY_PATH. librcl.so is linked straight to
# librmw_fastrtps_cpp.so (no rmw_implementation: RMW_IMPLEMENTATION cannot switch it) and to three
# or four lib*__rosidl_generator_py.so, so a C program must link libpython too.
read -r SITE PYLIBDIR PYLIB PYSHARED < <("$PY" -c 'import sysconfig as s
print(s.get_path("purelib"), s.get_config_var("LIBDIR"), "python" + s.get_config_var("LDVERSION"),
      s.get_config_var("Py_ENABLE_SHARED") or 0)')
vendored=$(find "$SITE" -maxdepth 1 -type d -name 'ros_*.libs' | sort | tr '\n' ':')
cflags=$(find "$VENV/include" -mindepth 1 -maxdepth 1 -type d ! -name 'python*' | sort | sed 's/^/-I/' | tr '\n' ' ')
ldflags="-L$VENV/lib -Wl,-rpath-link,$VENV/lib:${vendored%:}"
if [ "$PYSHARED" = 1 ]; then
  ldflags+=" -L$PYLIBDIR -Wl,--no-as-needed -l$PYLIB -Wl,--as-needed"
else
  log "warning: $("$PY" -c 'import sys; print(sys.base_prefix)') has no shared libpython: native rcl peers cannot link (rclpy works)"
fi
fastdds=$(find "$VENV/lib" -maxdepth 1 \( -name 'libfastdds.so.*.*.*' -o -name 'libfastrtps.so.*.*.*' \) -printf '%f\n')
# Sourcing replaces another distro's entries (both ship libfastcdr.so.2, and the wrong one breaks
# rclpy's import) and marks the bootstrap done: its re-exec would put LD_LIBRARY_PATH in set order.
cat >"$VENV/env.sh" <<EOF
# Generated by scripts/ros2-peer.sh $distro: source it (. $VENV/env.sh).
_ros2_strip() { _o=; _i=\$IFS; IFS=:; set -f; for _p in \$1; do case \$_p in ""|*/.venv-ros2-*) ;; *) _o=\${_o:+\$_o:}\$_p ;; esac; done; set +f; IFS=\$_i; printf '%s' "\$_o"; }
_a=\$(_ros2_strip "\${AMENT_PREFIX_PATH:-}"); _l=\$(_ros2_strip "\${LD_LIBRARY_PATH:-}")
export ROS_DISTRO=$distro
export ROS2_VENV=$VENV
export ROS2_PYTHON=$PY
export AMENT_PREFIX_PATH=$VENV\${_a:+:\$_a}
export LD_LIBRARY_PATH=$VENV/lib:$vendored$PYLIBDIR\${_l:+:\$_l}
export _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
export ROS2_RCL_PEER=$VENV/bin/rcl_peer
export ROS2_CFLAGS="$cflags"
export ROS2_LDFLAGS="$ldflags"
unset -f _ros2_strip; unset _a _l _o _i _p
EOF

# --- the native peer ------------------------------------------------------------------------
PEER=$VENV/bin/rcl_peer
SRC=(peers/ros2/rcl_peer.c peers/ros2/kinds.c peers/ros2/kinds.h)
stale=
for f in "${SRC[@]}"; do [ "$PEER" -nt "$f" ] || stale=1; done
if [ -n "$stale" ]; then
  [ "$mode" = "" ] || die "the native peer $PEER is missing or older than peers/ros2: run scripts/ros2-peer.sh $distro"
  if [ ! -f /usr/include/jpeglib.h ] || ! command -v cc >/dev/null 2>&1; then
    SUDO=()
    [ "$(id -u)" -eq 0 ] || SUDO=(sudo)
    log "apt-get install libjpeg-dev build-essential (the native peer's JPEG series and compiler)"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libjpeg-dev build-essential \
      || die "cannot install libjpeg-dev and a C compiler: install them and run again"
  fi
  # shellcheck disable=SC2086 # the flags are word lists
  cc -O2 -std=c11 -Wall -Wextra -Werror -o "$PEER.tmp" peers/ros2/rcl_peer.c peers/ros2/kinds.c \
    $cflags $ldflags -lrcl -lrmw -lrcutils -lrosidl_runtime_c -lsensor_msgs__rosidl_generator_c \
    -lsensor_msgs__rosidl_typesupport_c -lstd_msgs__rosidl_generator_c \
    -lbuiltin_interfaces__rosidl_generator_c -ljpeg \
    || die "building the native peer (peers/ros2/rcl_peer.c) failed"
  mv "$PEER.tmp" "$PEER"
  log "built $PEER"
fi
[ "$mode" = "--check" ] && { log "ROS 2 $distro present in $VENV"; exit 0; }

log "ROS 2 $distro ready (rclpy $("$PY" -c 'import importlib.metadata as m; print(m.version("ros-rclpy"))'), rmw_fastrtps_cpp, ${fastdds:-Fast DDS ?}); source $VENV/env.sh:"
grep '^export' "$VENV/env.sh" >&2
