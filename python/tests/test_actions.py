"""Actions in Python as rclpy has them (hibari.action): goals with feedback and
results, cancel requests, rejected goals, the endings an execute callback can
choose (and the ones it may not), async execute callbacks and blocking sends,
with the server and the client on two nodes of one context. Interop with
real rclpy is in test_ros2.py."""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator, List, Tuple

import pytest

import hibari
from conftest import LONG
from hibari.action import ActionClient, ActionServer, CancelResponse, GoalResponse

STATUS = {"SUCCEEDED": 4, "CANCELED": 5, "ABORTED": 6}


@pytest.fixture
def fib() -> Any:
    from hibari.msg.test_msgs.action import Fibonacci  # type: ignore[import-not-found]

    return Fibonacci


class Rig:
    """A server node and a client node in one context, spun by a
    single-threaded executor on a thread of its own."""

    def __init__(self, context: hibari.Context, name: str) -> None:
        self.server_node = hibari.Node(f"server_{name}", context=context)
        self.client_node = hibari.Node(f"client_{name}", context=context)
        self.executor = hibari.SingleThreadedExecutor(context=context)
        self.executor.add_node(self.server_node)
        self.executor.add_node(self.client_node)
        self.errors: List[BaseException] = []
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        try:
            self.executor.spin()
        except BaseException as e:  # noqa: BLE001 -- the test asserts on it
            self.errors.append(e)

    def close(self) -> None:
        self.executor.shutdown(LONG)
        self.thread.join(LONG)


@pytest.fixture
def rig(context: hibari.Context, topic: str) -> Iterator[Rig]:
    r = Rig(context, topic.strip("/"))
    yield r
    r.close()


def fibonacci_server(rig: Rig, fib: Any, name: str, **kwargs: Any) -> ActionServer:
    """A Fibonacci server: a feedback per number, cancels honoured between numbers."""

    def execute(goal_handle: Any) -> Any:
        sequence = [0, 1]
        for i in range(1, goal_handle.request.order):
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
                return fib.Result(sequence=sequence)
            sequence.append(sequence[i] + sequence[i - 1])
            goal_handle.publish_feedback(fib.Feedback(sequence=sequence))
            time.sleep(0.01)
        goal_handle.succeed()
        return fib.Result(sequence=sequence)

    kwargs.setdefault("execute_callback", execute)
    return ActionServer(rig.server_node, fib, name, **kwargs)


def client_for(rig: Rig, fib: Any, name: str) -> ActionClient:
    client = ActionClient(rig.client_node, fib, name)
    assert client.wait_for_server(timeout_sec=LONG)
    return client


def test_feedback_served_before_the_acceptance_waits_for_the_goal_id(rig: Rig, fib: Any, topic: str) -> None:
    """The executor may serve a goal's first feedback before the server's
    acceptance (both are in flight together): it is delivered, in order and
    with the goal's id, once the id is known — never with an empty id."""
    from hibari.action.client import _FeedbackRelay

    fibonacci_server(rig, fib, topic)
    client = client_for(rig, fib, topic)
    seen: List[Tuple[bytes, List[int]]] = []
    relay = _FeedbackRelay(client, lambda f: seen.append((bytes(f.goal_id.uuid), list(f.feedback.sequence))))
    relay(fib.Feedback(sequence=[0, 1, 1]))
    relay(fib.Feedback(sequence=[0, 1, 1, 2]))
    assert seen == []
    goal_id = bytes(range(16))
    relay.known(goal_id)
    relay(fib.Feedback(sequence=[0, 1, 1, 2, 3]))
    assert seen == [(goal_id, [0, 1, 1]), (goal_id, [0, 1, 1, 2]), (goal_id, [0, 1, 1, 2, 3])]


def test_a_goal_gets_its_feedback_and_result(rig: Rig, fib: Any, topic: str) -> None:
    server = fibonacci_server(rig, fib, topic)
    client = client_for(rig, fib, topic)
    assert server.action_name == topic and client.action_name == topic
    feedback: List[Tuple[bytes, List[int]]] = []
    sent = client.send_goal_async(fib.Goal(order=6),
                                  feedback_callback=lambda f: feedback.append(
                                      (bytes(f.goal_id.uuid), list(f.feedback.sequence))))
    assert sent.wait(LONG)
    handle = sent.result()
    assert handle.accepted and len(bytes(handle.goal_id.uuid)) == 16
    assert handle.stamp.sec > 0
    result = handle.get_result_async()
    assert result.wait(LONG)
    response = result.result()
    assert response.status == STATUS["SUCCEEDED"]
    assert list(response.result.sequence) == [0, 1, 1, 2, 3, 5, 8]
    assert handle.status == STATUS["SUCCEEDED"]
    # Feedback may trail the result by a spin: wait for all five.
    deadline = time.monotonic() + LONG
    while len(feedback) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [s for _, s in feedback] == [[0, 1, 1], [0, 1, 1, 2], [0, 1, 1, 2, 3],
                                        [0, 1, 1, 2, 3, 5], [0, 1, 1, 2, 3, 5, 8]]
    assert {i for i, _ in feedback} == {bytes(handle.goal_id.uuid)}
    assert not rig.errors


def test_a_cancel_accepted_ends_the_goal_canceled(rig: Rig, fib: Any, topic: str) -> None:
    asked: List[bytes] = []

    def on_cancel(goal_handle: Any) -> CancelResponse:
        asked.append(bytes(goal_handle.goal_id.uuid))
        return CancelResponse.ACCEPT

    fibonacci_server(rig, fib, topic, cancel_callback=on_cancel)
    client = client_for(rig, fib, topic)
    first = threading.Event()
    sent = client.send_goal_async(fib.Goal(order=10_000), feedback_callback=lambda f: first.set())
    assert sent.wait(LONG)
    handle = sent.result()
    assert first.wait(LONG)
    answer = handle.cancel_goal(timeout_sec=LONG)
    assert answer.return_code == 0
    assert [bytes(g.goal_id.uuid) for g in answer.goals_canceling] == [bytes(handle.goal_id.uuid)]
    assert asked[-1] == bytes(handle.goal_id.uuid)
    response = handle.get_result(timeout_sec=LONG)
    assert response.status == STATUS["CANCELED"]
    assert 2 <= len(response.result.sequence) < 10_000


def test_a_cancel_rejected_by_default_lets_the_goal_finish(rig: Rig, fib: Any, topic: str) -> None:
    fibonacci_server(rig, fib, topic)
    client = client_for(rig, fib, topic)
    sent = client.send_goal_async(fib.Goal(order=20))
    assert sent.wait(LONG)
    handle = sent.result()
    answer = handle.cancel_goal(timeout_sec=LONG)
    assert answer.return_code == 1  # ERROR_REJECTED
    assert list(answer.goals_canceling) == []
    assert handle.get_result(timeout_sec=LONG).status == STATUS["SUCCEEDED"]


def test_a_rejected_goal_has_a_handle_that_is_not_accepted(rig: Rig, fib: Any, topic: str) -> None:
    seen: List[int] = []

    def on_goal(goal: Any) -> GoalResponse:
        seen.append(goal.order)
        return GoalResponse.REJECT if goal.order < 0 else GoalResponse.ACCEPT

    fibonacci_server(rig, fib, topic, goal_callback=on_goal)
    client = client_for(rig, fib, topic)
    sent = client.send_goal_async(fib.Goal(order=-1))
    assert sent.wait(LONG)
    handle = sent.result()
    assert not handle.accepted
    with pytest.raises(hibari.HibariError, match="not accepted"):
        handle.get_result_async()
    assert client.send_goal(fib.Goal(order=-2), timeout_sec=LONG) is None
    assert list(client.send_goal(fib.Goal(order=3), timeout_sec=LONG).result.sequence) == [0, 1, 1, 2]
    assert seen == [-1, -2, 3]


def test_goals_that_raise_or_end_without_a_state_are_aborted(rig: Rig, fib: Any, topic: str) -> None:
    def execute(goal_handle: Any) -> Any:
        if goal_handle.request.order == 1:
            raise RuntimeError("the arm is stuck")
        if goal_handle.request.order == 2:
            return fib.Result(sequence=[7])  # no succeed(): aborted, result kept
        with pytest.raises(hibari.HibariError, match="cannot end with status 5"):
            goal_handle.canceled()  # no cancel was asked for
        goal_handle.abort()
        assert goal_handle.status == STATUS["ABORTED"] and not goal_handle.is_active
        return fib.Result(sequence=[9])

    fibonacci_server(rig, fib, topic, execute_callback=execute)
    client = client_for(rig, fib, topic)
    raised = client.send_goal(fib.Goal(order=1), timeout_sec=LONG)
    assert raised.status == STATUS["ABORTED"] and list(raised.result.sequence) == []
    unset = client.send_goal(fib.Goal(order=2), timeout_sec=LONG)
    assert unset.status == STATUS["ABORTED"] and list(unset.result.sequence) == [7]
    aborted = client.send_goal(fib.Goal(order=3), timeout_sec=LONG)
    assert aborted.status == STATUS["ABORTED"] and list(aborted.result.sequence) == [9]
    assert not rig.errors


def test_an_async_execute_callback_and_a_deferred_execute(rig: Rig, fib: Any, topic: str) -> None:
    waiting: List[Any] = []

    async def execute(goal_handle: Any) -> Any:
        import asyncio

        await asyncio.sleep(0.01)
        goal_handle.succeed()
        return fib.Result(sequence=[goal_handle.request.order])

    fibonacci_server(rig, fib, topic, execute_callback=execute,
                     handle_accepted_callback=waiting.append)
    client = client_for(rig, fib, topic)
    sent = client.send_goal_async(fib.Goal(order=42))
    assert sent.wait(LONG)
    handle = sent.result()
    assert handle.accepted
    # The accept reaches the client first, then the server's accepted callback
    # runs (rclpy's order); in one process the client's future resolves on
    # delivery, so that callback may still be on its way.
    deadline = time.monotonic() + LONG
    while not waiting and time.monotonic() < deadline:
        time.sleep(0.001)
    assert len(waiting) == 1 and waiting[0].status == 1  # ACCEPTED, not executing
    waiting[0].execute()
    with pytest.raises(hibari.HibariError, match="cannot go from Executing|the goal has ended"):
        waiting[0].execute()  # once only, as in rclpy
    response = handle.get_result(timeout_sec=LONG)
    assert response.status == STATUS["SUCCEEDED"] and list(response.result.sequence) == [42]


def test_wrong_types_are_refused_with_the_expected_type(rig: Rig, fib: Any, topic: str) -> None:
    fibonacci_server(rig, fib, topic)
    client = client_for(rig, fib, topic)
    with pytest.raises(TypeError, match="Fibonacci_Goal"):
        client.send_goal_async(fib.Result())
    with pytest.raises(TypeError, match="action class"):
        ActionClient(rig.client_node, fib.Goal, topic)
    with pytest.raises(ValueError, match="goal_uuid"):
        client.send_goal_async(fib.Goal(order=1), goal_uuid=b"x" * 16)


def test_a_server_that_is_gone_is_not_waited_for_forever(context: hibari.Context, fib: Any,
                                                       topic: str) -> None:
    node = hibari.Node("lonely_client", context=context)
    client = ActionClient(node, fib, topic)
    assert not client.server_is_ready()
    assert client.wait_for_server(timeout_sec=0.2) is False
    sent = client.send_goal_async(fib.Goal(order=1))
    assert sent.wait(LONG)
    with pytest.raises(hibari.ServiceUnavailableError):
        sent.result()
