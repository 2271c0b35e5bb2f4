#!/usr/bin/env bash
# The ROS 1 peer driver (run.py) under Debian's /usr/bin/python3, whatever python3 is on PATH.
# peers/ros1/README.md has the options and the JSON schema.
exec /usr/bin/python3 "$(dirname "$0")/run.py" "$@"
