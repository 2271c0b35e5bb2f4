"""The ``hibari`` command against a Python node in this process: ``topic
echo``/``pub``, ``service call``, ``param get``/``set`` and ``node info``
see Python's publishers, subscriptions, services and parameters as they see
Rust's (over shared memory: the command is another process).

The command is the binary ``cargo build -p hibari-cli`` makes
(``HIBARI_CLI``, else ``target/debug/hibari``); a missing one fails the test
with the command that builds it.
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path
from typing import Iterator

import pytest

import hibari
from conftest import LONG, ROOT

def cli_binary() -> Path:
    target = os.environ.get("CARGO_TARGET_DIR") or str(ROOT / "target")
    path = Path(os.environ.get("HIBARI_CLI") or os.path.join(target, "debug", "hibari"))
    assert os.access(path, os.X_OK), f"{path} is missing: run `cargo build -p hibari-cli`"
    return path


def hibari_cmd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli_binary()), *args], capture_output=True, text=True,
                          timeout=LONG * 3, check=False)


@pytest.fixture
def served(domain: int) -> Iterator[tuple[hibari.Node, list[str]]]:
    """A node `py_tools` with a publisher, a subscription, a SetBool service
    and a parameter, spun and published from background threads."""
    from hibari.msg.std_msgs import String
    from hibari.msg.std_srvs import SetBool

    ctx = hibari.Context([])
    node = hibari.Node("py_tools", context=ctx)
    heard: list[str] = []
    pub = node.create_publisher(String, "/py_said", 10)
    node.create_subscription(String, "/py_heard", lambda m: heard.append(m.data), 10)

    def answer(request, response):
        response.success = request.data
        response.message = "python"
        return response

    node.create_service(SetBool, "/py_switch", answer)
    node.declare_parameter("gain", 0.5)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    stop = threading.Event()

    def talk() -> None:
        while not stop.wait(0.02):
            pub.publish(String(data="from python"))

    threads = [threading.Thread(target=executor.spin, daemon=True),
               threading.Thread(target=talk, daemon=True)]
    for t in threads:
        t.start()
    yield node, heard
    stop.set()
    executor.shutdown()
    ctx.shutdown()


def test_the_cli_sees_and_drives_a_python_node(served) -> None:
    node, heard = served
    echo = hibari_cmd("topic", "echo", "--once", "/py_said")
    assert echo.returncode == 0, echo.stderr
    assert echo.stdout == "data: from python\n---\n"

    published = hibari_cmd("topic", "pub", "--once", "/py_heard", "std_msgs/msg/String",
                           "{data: from the cli}")
    assert published.returncode == 0, published.stderr
    deadline = LONG
    while "from the cli" not in heard and deadline > 0:
        threading.Event().wait(0.05)
        deadline -= 0.05
    assert heard == ["from the cli"]

    called = hibari_cmd("service", "call", "/py_switch", "std_srvs/srv/SetBool", "{data: true}")
    assert called.returncode == 0, called.stderr
    assert "response:\n{success: true, message: python}\n" in called.stdout

    got = hibari_cmd("param", "get", "/py_tools", "gain")
    assert got.stdout == "Double value is: 0.5\n", got.stderr
    set_ = hibari_cmd("param", "set", "/py_tools", "gain", "0.75")
    assert set_.stdout == "Set parameter successful\n", set_.stderr
    assert node.get_parameter("gain").value == 0.75

    info = hibari_cmd("node", "info", "/py_tools")
    assert info.returncode == 0, info.stderr
    for part in ("  Subscribers:\n    /py_heard: std_msgs/msg/String\n",
                 "    /py_said: std_msgs/msg/String\n",
                 "  Service Servers:\n", "    /py_switch: std_srvs/srv/SetBool\n"):
        assert part in info.stdout, info.stdout
