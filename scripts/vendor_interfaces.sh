#!/usr/bin/env bash
# Copies the ROS 2 interface packages that rosbags' type stores lack (so scripts/gen_interfaces.py
# cannot generate them) from their upstream repositories, at pinned commits, into
# crates/hibari-idl/interfaces/<distro>/<package>/, unchanged but for a first line naming the source:
#   test_msgs           ros2/test_interface_files (msg, srv, action) and ros2/rcl_interfaces
#                       (test_msgs/msg/Builtins.msg, test_msgs/action/NestedMessage.action); its
#                       IDL-only types (idl/IdlOnlyTypes.idl) are not bundled: hibari reads .msg text
#   example_interfaces  ros2/example_interfaces
# Humble's and Jazzy's branches hold the same definitions of both packages (`git diff humble
# jazzy` shows none); each distro gets the files of its own branch.
#   scripts/vendor_interfaces.sh [--check] [--mirror DIR]
# --check writes nothing and exits 1 when a file differs. --mirror DIR reads DIR/<owner>+<name>/repo
# (bare clones) instead of cloning from GitHub. Apache-2.0 (see interfaces/NOTICE).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=crates/hibari-idl/interfaces
MARK='# Copied by scripts/vendor_interfaces.sh from'
check=0
mirror=
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --mirror) mirror=$2; shift ;;
    *) echo "usage: $0 [--check] [--mirror DIR]" >&2; exit 2 ;;
  esac
  shift
done

# distro repo commit package source-dir
SOURCES=(
  "humble ros2/test_interface_files a0c8f5e338490ddf8b98238dce35c06810115e8b test_msgs ."
  "jazzy ros2/test_interface_files 21bb632b8d61ccaff4730d760f806b67132c3e4b test_msgs ."
  "humble ros2/rcl_interfaces 5e01a28f9866a564491480e12d8659a134678741 test_msgs test_msgs"
  "jazzy ros2/rcl_interfaces 003987ecb81a32802ab27dd6d325b8c6b8b813cc test_msgs test_msgs"
  "humble ros2/example_interfaces f8deb566a1facf91bd38b9f00c4cf684c5007d85 example_interfaces ."
  "jazzy ros2/example_interfaces 4d7d086e4791e1839fecb9c50a1291d4056b916f example_interfaces ."
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo_dir() { # owner/name -> a git directory holding its history
  local repo=$1 dir
  if [ -n "$mirror" ]; then
    dir="$mirror/${repo/\//+}/repo"
    [ -d "$dir" ] || { echo "no mirror of $repo at $dir" >&2; exit 1; }
  else
    dir="$tmp/${repo/\//+}"
    [ -d "$dir" ] || git clone -q --bare --filter=blob:none "https://github.com/$repo" "$dir"
  fi
  echo "$dir"
}

differ=0
for line in "${SOURCES[@]}"; do
  read -r distro repo commit package src <<<"$line"
  git_dir=$(repo_dir "$repo")
  prefix=""
  [ "$src" = "." ] || prefix="$src/"
  while IFS= read -r path; do
    rel=${path#"$prefix"}
    case "$rel" in msg/*.msg|srv/*.srv|action/*.action) ;; *) continue ;; esac
    dest="$OUT/$distro/$package/$rel"
    want="$tmp/want"
    { echo "$MARK $repo@${commit:0:12} $path"; git --git-dir="$git_dir" show "$commit:$path"; } >"$want"
    if [ "$check" = 1 ]; then
      cmp -s "$want" "$dest" || { echo "differs: $dest" >&2; differ=1; }
    else
      mkdir -p "$(dirname "$dest")"
      cp "$want" "$dest"
    fi
  done < <(git --git-dir="$git_dir" ls-tree -r --name-only "$commit" -- "${prefix:-.}")
done
if [ "$check" = 1 ]; then
  [ "$differ" = 0 ] && echo "vendored interfaces: up to date"
  exit "$differ"
fi
echo "vendored interfaces written under $OUT"
