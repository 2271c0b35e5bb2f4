"""Logging from a Python node, as rclpy logs: ROS 2's console line (and its
environment variables), levels from --ros-args, once/skip_first/throttle per
call site, and every record on /rosout."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any, List

import hibari
from conftest import LONG, spin_until
from hibari.logging import LoggingSeverity

SCRIPT = """
import hibari
hibari.init(["prog", "--ros-args"] + {args!r})
node = hibari.Node("talker", namespace="/r1")
log = node.get_logger()
log.debug("hidden unless debug")
log.info("hello %d" % 3)
for _ in range(3):
    log.warn("once", once=True)
log.get_child("io").error("child")
hibari.shutdown()
"""


def run(args: List[str], **env: str) -> List[str]:
    full = dict(os.environ, HIBARI_TRANSPORT="inproc", **env)
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(args=args)], env=full,
                          capture_output=True, text=True, timeout=LONG * 6)
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines() + done.stdout.splitlines()


def test_console_lines_follow_ros2s_format_and_levels() -> None:
    lines = run([], RCUTILS_COLORIZED_OUTPUT="0")
    assert len(lines) == 3, lines
    assert re.fullmatch(r"\[INFO\] \[\d+\.\d{9}\] \[r1\.talker\]: hello 3", lines[0]), lines
    assert re.fullmatch(r"\[WARN\] \[\d+\.\d{9}\] \[r1\.talker\]: once", lines[1]), lines
    assert lines[2].endswith("[r1.talker.io]: child"), lines
    lines = run(["--log-level", "r1.talker:=debug"], RCUTILS_COLORIZED_OUTPUT="0",
                RCUTILS_CONSOLE_OUTPUT_FORMAT="{severity} {name} {message} ({function_name})")
    assert lines[:2] == ["DEBUG r1.talker hidden unless debug (<module>)", "INFO r1.talker hello 3 (<module>)"]
    lines = run(["--log-level", "error"], RCUTILS_COLORIZED_OUTPUT="1", RCUTILS_LOGGING_USE_STDOUT="1")
    assert len(lines) == 1 and lines[0].startswith("\x1b[31m[ERROR] ["), lines
    assert lines[0].endswith("[r1.talker.io]: child\x1b[0m"), lines
    assert run(["--disable-stdout-logs"]) == []


def test_records_reach_rosout_with_their_call_site(context: hibari.Context) -> None:
    from hibari.msg.rcl_interfaces.msg import Log

    node = hibari.Node("logger_node", context=context)
    got: List[Any] = []
    sub = node.create_subscription(Log, "/rosout", got.append, hibari.QoSProfile(depth=100))
    assert sub is not None
    log = node.get_logger()
    assert log.name == "logger_node"
    assert log.get_effective_level() == LoggingSeverity.INFO
    assert not log.debug("below")
    assert log.info("first")
    for _ in range(3):
        log.error("skip", skip_first=True)
        log.warn("throttled", throttle_duration_sec=60.0)
    log.set_level(LoggingSeverity.DEBUG)
    assert log.debug("now")
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    assert spin_until(executor, lambda: len(got) >= 5, LONG), [m.msg for m in got]
    assert [(m.level, m.msg) for m in got] == [
        (20, "first"), (30, "throttled"), (40, "skip"), (40, "skip"), (10, "now")]
    first = got[0]
    assert first.name == "logger_node" and first.file == __file__
    assert first.function == "test_records_reach_rosout_with_their_call_site" and first.line > 0
