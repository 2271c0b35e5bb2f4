#!/usr/bin/env bash
# Installs Debian bookworm's ROS 1 (ros_comm 1.15, Noetic-era) and builds the ROS 1 peer programs
# that `hibari bench` runs beside hibari (peers/ros1/README.md). Idempotent: packages are
# installed only when missing, binaries rebuilt only when a source is newer.
#   scripts/ros1-peer.sh            install what is missing, build, print where the peers are
#   scripts/ros1-peer.sh --check    install nothing; exit 1 and say what is missing
#   scripts/ros1-peer.sh --no-install   build only (fails clearly when packages are missing)
# Environment: CXX (default g++), CXXFLAGS (default -O2), ROS1_PEER_OUT (default target/ros1-peer).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SRC=$ROOT/peers/ros1
OUT=${ROS1_PEER_OUT:-$ROOT/target/ros1-peer}
mode=${1:-}

log() { printf '\033[1;34m[ros1-peer]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[ros1-peer] error:\033[0m %s\n' "$*" >&2; exit 1; }

case "$mode" in ""|--check|--no-install) ;; *) die "unknown option '$mode' (use --check or --no-install)";; esac

# --- Debian packages ----------------------------------------------------------------------
# ros-core: roscore (rosmaster, rosout); the -dev packages carry roscpp and the message headers
# (header-only, found through pkg-config); python3-* carry rospy and its message classes, which
# exist only for Debian's /usr/bin/python3. libjpeg-dev is libjpeg-turbo (libjpeg API) for the
# publisher's JPEG series (E1's CompressedImage).
PKGS=(ros-core libroscpp-dev libstd-msgs-dev libsensor-msgs-dev libjpeg-dev
      python3-rospy python3-std-msgs python3-sensor-msgs g++ pkg-config)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$mode" = "" ] || die "missing Debian packages: ${missing[*]}
  install them with: scripts/ros1-peer.sh   (runs apt-get install ${missing[*]})"
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: the ROS 1 peer needs Debian bookworm's ros-core packages"
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: run as root: apt-get install ${missing[*]}"
    SUDO=(sudo)
  fi
  log "apt-get install ${missing[*]}"
  if ! apt-cache show ros-core >/dev/null 2>&1; then
    "${SUDO[@]}" apt-get update -qq || die "apt-get update failed"
  fi
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed (Debian bookworm or newer has these packages in 'main'; older releases need packages.ros.org)"
fi

# --- checks ---------------------------------------------------------------------------------
command -v roscore >/dev/null 2>&1 || die "roscore not on PATH after installing ros-core"
pkg-config --exists roscpp || die "pkg-config does not know roscpp (package libroscpp-dev)"
for h in sensor_msgs/LaserScan.h sensor_msgs/Image.h sensor_msgs/CompressedImage.h std_msgs/UInt8MultiArray.h jpeglib.h; do
  [ -f "/usr/include/$h" ] || die "header /usr/include/$h missing (libsensor-msgs-dev / libstd-msgs-dev / libjpeg-dev)"
done
/usr/bin/python3 -c 'import rospy, sensor_msgs.msg, std_msgs.msg' 2>/dev/null \
  || die "/usr/bin/python3 cannot import rospy/sensor_msgs/std_msgs (python3-rospy, python3-sensor-msgs, python3-std-msgs)"
[ "$mode" = "--check" ] && { log "ROS 1 packages present"; exit 0; }

# --- build ----------------------------------------------------------------------------------
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:--O2}
mkdir -p "$OUT"
read -r -a ROS_FLAGS <<<"$(pkg-config --cflags --libs roscpp)"
for prog in ros1_pub ros1_sub; do
  src=$SRC/src/${prog#ros1_}.cpp
  bin=$OUT/$prog
  if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$SRC/src/common.hpp" -nt "$bin" ] || [ "$SRC/src/jpeg.hpp" -nt "$bin" ]; then
    log "$CXX $CXXFLAGS -std=c++17 $(basename "$src") -> $bin"
    "$CXX" $CXXFLAGS -std=c++17 -Wall -Wextra -o "$bin.tmp" "$src" "${ROS_FLAGS[@]}" -ljpeg -lpthread \
      || die "compiling $src failed"
    mv "$bin.tmp" "$bin"
  fi
done

log "ROS 1 peers ready (ros_comm $(dpkg-query -W -f='${Version}' libroscpp-dev)):"
printf '%s\n' "$OUT/ros1_pub" "$OUT/ros1_sub" "$SRC/py/pub.py (rospy, /usr/bin/python3)" "$SRC/py/sub.py (rospy, /usr/bin/python3)"
log "run a cell: peers/ros1/run.sh --type laser --ranges 1000 --rate 100 --count 200"
