"""A hibari Python node and a real rclpy node (ROS 2 Jazzy from the PyPI wheels,
scripts/ros2-peer.sh) exchange std_msgs/String both ways, through the same default
Context as every hibari node: its DDS participant finds rclpy by itself.

The rclpy side is the Rust interop tests' peer program
(crates/hibari/tests/ros2/rclpy_peer.py), started in the test's domain
(``ROS_DOMAIN_ID``). Without the ROS 2 venv the test fails, saying how to install it.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from typing import List

import pytest

import hibari
from conftest import LONG, ROOT, spin_until
from hibari.duration import Duration

DISTRO = "jazzy"
PEER = ROOT / "crates" / "hibari" / "tests" / "ros2" / "rclpy_peer.py"
# Discovery between DDS participants takes a moment; only a hang reaches this.
DISCOVERY = 60.0


class Rclpy:
    """``rclpy_peer.py <role> <node> <args>`` in its own process, killed at the end."""

    def __init__(self, *args: str) -> None:
        env_sh = ROOT / f".venv-ros2-{DISTRO}" / "env.sh"
        if not env_sh.is_file():
            pytest.fail(f"ROS 2 {DISTRO} is not installed ({env_sh} is missing): "
                        f"run scripts/ros2-peer.sh {DISTRO}", pytrace=False)
        self.proc = subprocess.Popen(
            ["bash", "-c", '. "$1" && shift && exec "$ROS2_PYTHON" "$@"', "peer", str(env_sh),
             str(PEER), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def drain(self, into: List[str]) -> List[str]:
        """Appends every line rclpy has written so far to ``into``; returns it."""
        while True:
            try:
                into.append(self.lines.get_nowait())
            except queue.Empty:
                return into

    def expect(self, prefix: str, timeout: float = DISCOVERY) -> str:
        try:
            while True:
                line = self.lines.get(timeout=timeout)
                if line.startswith(prefix):
                    return line
        except queue.Empty:
            self.kill()
            assert self.proc.stderr is not None
            pytest.fail(f"rclpy said no `{prefix}` line within {timeout} s; its stderr:\n"
                        f"{self.proc.stderr.read()}")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(LONG)


def test_a_hibari_python_node_and_an_rclpy_node_talk_both_ways(domain: int) -> None:
    from hibari.msg.std_msgs import String

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_py", context=ctx)
    to_rclpy = f"/py_to_rclpy_{os.getpid()}"
    from_rclpy = f"/rclpy_to_py_{os.getpid()}"

    # hibari → rclpy
    pub = node.create_publisher(String, to_rclpy, 10)
    listener = Rclpy("listen", "rclpy_listener", to_rclpy, "5", "reliable")
    try:
        assert pub.wait_for_subscribers(1, DISCOVERY), "hibari's publisher never matched rclpy"
        listener.expect("matched")
        for n in range(5):
            pub.publish(String(data=f"msg {n}"))
        assert pub.wait_for_all_acked(Duration(seconds=DISCOVERY)), "rclpy never acknowledged"
        heard = [listener.expect("got ") for _ in range(5)]
    finally:
        listener.kill()
    assert heard == [f"got msg {n}" for n in range(5)]

    # rclpy → hibari
    got: List[str] = []
    sub = node.create_subscription(String, from_rclpy, lambda m: got.append(m.data), 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    talker = Rclpy("talk", "rclpy_talker", from_rclpy, "5", "reliable")
    try:
        talker.expect("matched")
        assert spin_until(executor, lambda: sub.get_publisher_count() > 0, DISCOVERY)
        talker.send("go")
        assert spin_until(executor, lambda: len(got) >= 5, DISCOVERY), got
    finally:
        talker.kill()
    assert got == [f"msg {n}" for n in range(5)]


def test_rclpys_parameter_client_reads_and_sets_a_hibari_python_nodes_parameters(domain: int) -> None:
    import json

    from hibari.msg.rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_params", context=ctx)
    node.declare_parameter("rate", 30)
    node.declare_parameter("gain", 0.5, ParameterDescriptor(
        description="the gain",
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0, step=0.0)]))
    node.declare_parameter("port", "/dev/ttyUSB0", ParameterDescriptor(read_only=True))
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    client = Rclpy("param_client", "rclpy_params", "/hibari_params")
    try:
        line: List[str] = []

        def result() -> bool:
            return any(x.startswith("result ") for x in client.drain(line))

        assert spin_until(executor, result, DISCOVERY), line
    finally:
        client.kill()
    seen = json.loads(next(x for x in line if x.startswith("result "))[len("result "):])
    assert seen["names"] == ["gain", "port", "rate", "use_sim_time"]
    assert seen["values"] == [[2, 30], [3, 0.5]]
    assert seen["gain"] == {"description": "the gain", "type": 3, "range": [[0.0, 1.0, 0.0]]}
    assert [r[0] for r in seen["set"]] == [True, False, False, False, False]
    assert seen["set"][3][1] == "Trying to set a read-only parameter: port."
    assert seen["event"] == [2, 60]
    assert node.get_parameter("rate").value == 60


def test_a_hibari_python_parameter_client_drives_an_rclpy_node(domain: int) -> None:
    from hibari.parameter import Parameter
    from hibari.parameter_client import AsyncParameterClient

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_py_params", context=ctx)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    server = Rclpy("param_server", "rclpy_params")
    try:
        server.expect("ready")
        client = AsyncParameterClient(node, "/rclpy_params")
        assert client.wait_for_services(DISCOVERY), "rclpy's parameter services"

        def done(future: "hibari.Future") -> "object":
            executor.spin_until_future_complete(future, DISCOVERY)
            assert future.done()
            return future.result()

        got = done(client.get_parameters(["rate", "names"]))
        assert got.values[0].integer_value == 30  # type: ignore[attr-defined]
        assert list(got.values[1].string_array_value) == ["a", "b"]  # type: ignore[attr-defined]
        r = done(client.set_parameters([Parameter("gain", value=0.7), Parameter("gain", value=0.95)]))
        assert [(x.successful, x.reason) for x in r.results] == [  # type: ignore[attr-defined]
            (True, ""), (False, "gain above 0.9")]
        assert server.expect("set gain") == "set gain 0.7"
    finally:
        server.kill()


def test_an_rclpy_clock_publisher_drives_a_hibari_python_nodes_sim_time(domain: int) -> None:
    from hibari.parameter import Parameter

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_py_sim", context=ctx,
                       parameter_overrides=[Parameter("use_sim_time", value=True)])
    peer = Rclpy("clock_talk", "rclpy_clock")
    try:
        peer.expect("ready")
        clock = node.get_clock()
        assert clock.ros_time_is_active and clock.now().nanoseconds == 0
        # Best effort, keep last 1: send again until the node has read it.
        for ns in (1_500_000_000, 2_000_000_000):
            deadline = time.monotonic() + DISCOVERY
            while clock.now().nanoseconds != ns:
                assert time.monotonic() < deadline, f"the node never read /clock = {ns}"
                peer.send(f"clock {ns}")
                time.sleep(0.02)
        assert clock.now().to_msg().sec == 2
    finally:
        peer.kill()
        ctx.shutdown()


def test_rclpys_action_client_drives_a_hibari_python_action_server(domain: int) -> None:
    from hibari.action import ActionServer, CancelResponse
    from hibari.msg.test_msgs.action import Fibonacci  # type: ignore[import-not-found]

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_py_fib_server", context=ctx)
    action = f"/py_fibonacci_{os.getpid()}"

    def execute(goal_handle: "object") -> "object":
        sequence = [0, 1]
        for i in range(1, goal_handle.request.order):  # type: ignore[attr-defined]
            if goal_handle.is_cancel_requested:  # type: ignore[attr-defined]
                goal_handle.canceled()  # type: ignore[attr-defined]
                return Fibonacci.Result(sequence=sequence)
            sequence.append(sequence[i] + sequence[i - 1])
            goal_handle.publish_feedback(Fibonacci.Feedback(sequence=sequence))  # type: ignore[attr-defined]
            time.sleep(0.1)
        goal_handle.succeed()  # type: ignore[attr-defined]
        return Fibonacci.Result(sequence=sequence)

    ActionServer(node, Fibonacci, action, execute, cancel_callback=lambda _: CancelResponse.ACCEPT)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    client = Rclpy("fib_client", "rclpy_fib_client", action)
    try:
        lines: List[str] = []

        def finished() -> bool:
            return sum(x.startswith("result ") for x in client.drain(lines)) == 2

        assert spin_until(executor, finished, DISCOVERY), lines
    finally:
        client.kill()
        ctx.shutdown()
    feedback = [x for x in lines if x.startswith("feedback ")]
    assert feedback[:4] == ["feedback [0, 1, 1]", "feedback [0, 1, 1, 2]", "feedback [0, 1, 1, 2, 3]",
                            "feedback [0, 1, 1, 2, 3, 5]"], lines
    assert "result SUCCEEDED [0, 1, 1, 2, 3, 5]" in lines
    assert "cancel 0" in lines
    canceled = next(x for x in lines if x.startswith("result CANCELED "))
    assert 2 <= len(canceled.split(",")) < 50, canceled


def test_a_hibari_python_action_client_drives_an_rclpy_action_server(domain: int) -> None:
    from hibari.action import ActionClient
    from hibari.msg.test_msgs.action import Fibonacci  # type: ignore[import-not-found]

    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("hibari_py_fib_client", context=ctx)
    action = f"/rclpy_fibonacci_{os.getpid()}"
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    server = Rclpy("fib_server", "rclpy_fib_server", action)
    try:
        server.expect("ready")
        client = ActionClient(node, Fibonacci, action)
        assert client.wait_for_server(DISCOVERY), "rclpy's action server"
        feedback: List[List[int]] = []
        sent = client.send_goal_async(Fibonacci.Goal(order=5),
                                      feedback_callback=lambda f: feedback.append(list(f.feedback.sequence)))
        executor.spin_until_future_complete(sent, DISCOVERY)
        handle = sent.result()
        assert handle.accepted
        result = handle.get_result_async()
        executor.spin_until_future_complete(result, DISCOVERY)
        assert result.result().status == 4
        assert list(result.result().result.sequence) == [0, 1, 1, 2, 3, 5]
        assert spin_until(executor, lambda: len(feedback) == 4, DISCOVERY), feedback
        assert feedback[-1] == [0, 1, 1, 2, 3, 5]

        first = hibari.Future()
        sent = client.send_goal_async(Fibonacci.Goal(order=50),
                                      feedback_callback=lambda f: first.set_result(True))
        executor.spin_until_future_complete(sent, DISCOVERY)
        handle = sent.result()
        executor.spin_until_future_complete(first, DISCOVERY)
        answer = handle.cancel_goal(timeout_sec=DISCOVERY)
        assert answer.return_code == 0
        ended = handle.get_result(timeout_sec=DISCOVERY)
        assert ended.status == 5 and 2 <= len(ended.result.sequence) < 50
    finally:
        server.kill()
        ctx.shutdown()
