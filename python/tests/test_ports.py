"""Port checks: a node written for rclpy (tests/ports/) runs under real rclpy
(the ROS 2 Jazzy wheels) and, with only its imports renamed, under hibari;
both print the same lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from conftest import ROOT

PORTS = Path(__file__).resolve().parent / "ports"
LIMIT = 120.0


def hibari_imports(source: str) -> str:
    """The renaming a user does: rclpy → hibari, ROS messages → hibari.msg."""
    out = []
    for line in source.splitlines():
        line = line.replace("import rclpy.node", "import hibari.node")
        if line == "import rclpy":
            line = "import hibari as rclpy"
        line = line.replace("from rclpy.", "from hibari.")
        line = re.sub(r"^from (\w+_msgs|rcl_interfaces)\.(msg|srv|action) import",
                      r"from hibari.msg.\1.\2 import", line)
        out.append(line)
    return "\n".join(out) + "\n"


def run(command: List[str], domain: int) -> List[str]:
    """stdout's lines, then stderr's (the log) with their timestamps blanked."""
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain), RCUTILS_COLORIZED_OUTPUT="0")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=LIMIT)
    assert done.returncode == 0, f"{command} failed:\n{done.stderr}"
    log = [re.sub(r"^\[(\w+)\] \[\d+\.\d+\]", r"[\1] [T]", x) for x in done.stderr.splitlines()]
    return done.stdout.splitlines() + log


def both(name: str, args: List[str], domain: int, tmp_path: Path) -> "tuple[List[str], List[str]]":
    """The lines of ports/<name> under rclpy, then under hibari with its imports renamed."""
    source = (PORTS / name).read_text()
    env_sh = ROOT / ".venv-ros2-jazzy" / "env.sh"
    if not env_sh.is_file():
        pytest.fail(f"ROS 2 jazzy is not installed ({env_sh} is missing): run scripts/ros2-peer.sh jazzy",
                    pytrace=False)
    under_rclpy = run(["bash", "-c", '. "$1" && shift && exec "$ROS2_PYTHON" "$@"', "port", str(env_sh),
                       str(PORTS / name), *args], domain)
    ported = tmp_path / name
    ported.write_text(hibari_imports(source))
    assert "import hibari as rclpy" in ported.read_text()
    return under_rclpy, run([sys.executable, str(ported), *args], domain)


def test_the_tutorial_parameter_node_runs_the_same_under_rclpy_and_hibari(
        domain: int, tmp_path: Path) -> None:
    args = ["--ros-args", "-p", "my_parameter:=earth", "-p", "times:=3"]
    under_rclpy, under_hibari = both("minimal_param.py", args, domain, tmp_path)
    greeting = [f"[INFO] [T] [minimal_param_node]: Hello {w}!" for w in ["earth", "world", "world"]]
    assert [x for x in under_rclpy if x.startswith("[INFO]")] == greeting, under_rclpy
    assert under_hibari == under_rclpy


def test_the_lifecycle_talker_runs_the_same_under_rclpy_and_hibari(
        domain: int, tmp_path: Path) -> None:
    under_rclpy, under_hibari = both("lifecycle_talker.py", [], domain, tmp_path)
    assert "heard ['Lifecycle HelloWorld #4', 'Lifecycle HelloWorld #5', " \
        "'Lifecycle HelloWorld #6']" in under_rclpy, under_rclpy
    assert under_hibari == under_rclpy


def test_the_tutorial_action_server_and_client_run_the_same_under_rclpy_and_hibari(
        domain: int, tmp_path: Path) -> None:
    under_rclpy, under_hibari = both("fibonacci_action.py", [], domain, tmp_path)
    result = "[INFO] [T] [fibonacci_action_client]: Result: [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55]"
    assert result in under_rclpy, under_rclpy
    assert under_rclpy.count("[INFO] [T] [fibonacci_action_server]: Executing goal...") == 1, under_rclpy
    assert sum("Received feedback" in x for x in under_rclpy) == 9, under_rclpy
    # Each node's lines come in its own order; the server's and the client's
    # interleave as their threads run, under rclpy as under hibari.
    for node in ("fibonacci_action_server", "fibonacci_action_client"):
        assert [x for x in under_hibari if node in x] == [x for x in under_rclpy if node in x]
    assert sorted(under_hibari) == sorted(under_rclpy)


def test_the_logging_demo_runs_the_same_under_rclpy_and_hibari(domain: int, tmp_path: Path) -> None:
    args = ["--ros-args", "--log-level", "logging_demo:=info"]
    under_rclpy, under_hibari = both("logging_demo.py", args, domain, tmp_path)
    assert "[INFO] [T] [logging_demo]: tick once" in under_rclpy, under_rclpy
    assert "[DEBUG] [T] [logging_demo]: debug shown after set_level(DEBUG)" in under_rclpy, under_rclpy
    assert "[INFO] [T] [logging_demo.child]: from the child logger" in under_rclpy, under_rclpy
    assert under_hibari == under_rclpy
