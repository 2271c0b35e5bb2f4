"""The client side of actions: rclpy's ``ActionClient`` and ``ClientGoalHandle``.

As hibari's service clients, an action client needs no executor for its
answers: ``send_goal_async``, ``get_result_async`` and ``cancel_goal_async``
return futures completed on the thread that delivers the answer, so they can
be awaited in asyncio, waited on (``send_goal``, ``get_result``,
``cancel_goal`` block without spinning), or driven by
``spin_until_future_complete`` as in rclpy. The feedback callback runs on the
executor spinning the node, and gets the action's ``FeedbackMessage``
(``.goal_id``, ``.feedback``), as in rclpy.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Deque, Optional

from .. import _hibari
from ..futures import Future

if TYPE_CHECKING:
    from ..node import Node

__all__ = ["ActionClient", "ClientGoalHandle"]


def _complete(future: Future, convert: Callable[[Any], Any] = lambda v: v) -> Callable[[bool, Any], None]:
    """The ``on_done(ok, value)`` the extension calls for ``future``."""

    def done(ok: bool, value: Any) -> None:
        if not ok:
            future._finish(False, value)
            return
        try:
            future._finish(True, convert(value))
        except Exception as e:  # noqa: BLE001 -- a conversion error completes the future
            future._finish(False, e)

    return done


class ClientGoalHandle:
    """A goal sent by an ``ActionClient``: accepted or not, its id and stamp,
    its status, its result, its cancellation."""

    def __init__(self, client: "ActionClient", inner: Any, goal_id: Any, accepted: bool) -> None:
        from ..msg.builtin_interfaces import Time  # type: ignore[attr-defined]

        self._client = client
        self._inner = inner
        self._goal_id = goal_id
        self._accepted = accepted
        sec, nanosec = inner.stamp if inner is not None else (0, 0)
        self._stamp = Time(sec=sec, nanosec=nanosec)
        self._status = 0

    @property
    def goal_id(self) -> Any:
        """The goal's ``unique_identifier_msgs/UUID``."""
        return self._goal_id

    @property
    def stamp(self) -> Any:
        """When the server accepted the goal (``builtin_interfaces/Time``)."""
        return self._stamp

    @property
    def accepted(self) -> bool:
        return self._accepted

    @property
    def status(self) -> int:
        """The last ``action_msgs/msg/GoalStatus`` number heard."""
        if self._inner is None:
            return self._status
        return int(self._inner.status())

    def _require_accepted(self) -> Any:
        if self._inner is None:
            raise _hibari.HibariError("the goal was not accepted")
        return self._inner

    def get_result_async(self) -> Future:
        """A future of the result: the action's ``GetResult`` response
        (``.status``, ``.result``), when the goal ends."""
        inner = self._require_accepted()
        response_type = self._client._parts["GetResult_Response"]
        future = Future()

        def convert(value: Any) -> Any:
            status, result = value
            return response_type(status=status, result=result)

        future._pending = inner.get_result_async(_complete(future, convert))
        return future

    def get_result(self, timeout_sec: Optional[float] = None) -> Any:
        """Waits for the result (``TimeoutError`` after ``timeout_sec``)."""
        return _wait(self.get_result_async(), timeout_sec, "the result")

    def cancel_goal_async(self) -> Future:
        """A future of the server's ``action_msgs/srv/CancelGoal`` response."""
        inner = self._require_accepted()
        future = Future()
        future._pending = inner.cancel_async(_complete(future))
        return future

    def cancel_goal(self, timeout_sec: Optional[float] = None) -> Any:
        """Asks to cancel the goal and waits for the answer."""
        return _wait(self.cancel_goal_async(), timeout_sec, "the cancel answer")

    def __repr__(self) -> str:
        return f"ClientGoalHandle(accepted={self._accepted}, status={self.status})"


def _wait(future: Future, timeout_sec: Optional[float], what: str) -> Any:
    if not future.wait(timeout_sec):
        future.cancel()
        raise TimeoutError(f"{what} did not come within {timeout_sec} s")
    return future.result()


class ActionClient:
    """Sends goals to the action ``action_name`` of type ``action_type``
    (rclpy's ``ActionClient``). The QoS keywords and ``callback_group`` are
    accepted for rclpy's sake: the client uses ROS 2's action defaults, and
    its feedback callbacks run in the node's default group (its answers need
    no executor at all)."""

    def __init__(self, node: "Node", action_type: Any, action_name: str, *,
                 callback_group: Any = None, **_qos: Any) -> None:
        from ..msg import get_message, get_service
        from ..msg.unique_identifier_msgs import UUID  # type: ignore[attr-defined]
        from .server import _action_type_name

        type_name = _action_type_name(action_type)
        self._node = node
        self._action_type = action_type
        self._uuid = UUID
        self._parts = {part: get_message(f"{type_name}_{part}")
                       for part in ("GetResult_Response", "FeedbackMessage")}
        get_service("action_msgs/srv/CancelGoal")  # the class a cancel's answer gets
        self._inner = _hibari.ActionClient(node._inner, type_name, action_name)
        node._keep(self)

    @property
    def action_type(self) -> Any:
        return self._action_type

    @property
    def action_name(self) -> str:
        return str(self._inner.action_name)

    def server_is_ready(self) -> bool:
        return bool(self._inner.server_is_ready())

    def wait_for_server(self, timeout_sec: Optional[float] = None) -> bool:
        """Waits (GIL released) until a server is there; returns whether one is."""
        return bool(self._inner.wait_for_server(timeout_sec))

    def send_goal_async(self, goal: Any, feedback_callback: Optional[Callable[[Any], None]] = None,
                        goal_uuid: Any = None) -> Future:
        """Sends ``goal`` (the action's ``Goal`` message); the future
        completes with a ``ClientGoalHandle`` (``accepted`` False if the
        server rejected it). ``feedback_callback(msg)`` gets the goal's
        ``FeedbackMessage``s. hibari picks the goal's id: ``goal_uuid`` must
        be None."""
        if goal_uuid is not None:
            raise ValueError("hibari picks the goal's id: leave goal_uuid None")
        expected = self._action_type.Goal
        if not isinstance(goal, expected):
            raise TypeError(f"expected a {expected.__name__}, got {type(goal).__name__}")
        future = Future()
        on_feedback = None
        if feedback_callback is not None:
            on_feedback = _FeedbackRelay(self, feedback_callback)

        def handle(inner: Any) -> ClientGoalHandle:
            if inner is None:
                return ClientGoalHandle(self, None, self._uuid(), False)
            if on_feedback is not None:
                on_feedback.known(bytes(inner.goal_id))
            return ClientGoalHandle(self, inner, self._uuid(uuid=inner.goal_id), True)

        future._pending = self._inner.send_goal_async(goal, _complete(future, handle), on_feedback)
        return future

    def send_goal(self, goal: Any, feedback_callback: Optional[Callable[[Any], None]] = None,
                  goal_uuid: Any = None, timeout_sec: Optional[float] = None) -> Any:
        """Sends ``goal`` and waits for its result (the ``GetResult``
        response; None if the goal was rejected). Needs no spinning."""
        handle = _wait(self.send_goal_async(goal, feedback_callback, goal_uuid), timeout_sec,
                       "the goal's acceptance")
        if not handle.accepted:
            return None
        return handle.get_result(timeout_sec)

    def destroy(self) -> None:
        """Stops the client (the node drops it)."""
        self._node._destroy(self)


class _FeedbackRelay:
    """Wraps each ``Feedback`` in the action's ``FeedbackMessage`` for the
    user's callback. The goal id is known once the goal is accepted, but the
    first feedback may be served before the acceptance (the server starts
    executing as it answers, and the executor serves the feedback topic and
    the goal's reply in either order): feedback that comes first waits here
    and is delivered, in order, once the id is known. The user's callback
    never runs under the lock, and never twice at once."""

    def __init__(self, client: ActionClient, callback: Callable[[Any], None]) -> None:
        self._message = client._parts["FeedbackMessage"]
        self._uuid = client._uuid
        self._callback = callback
        self._lock = threading.Lock()
        self._queue: Deque[Any] = deque()
        self._draining = False
        self.goal_id: Optional[bytes] = None

    def known(self, goal_id: bytes) -> None:
        """The goal was accepted with ``goal_id``: deliver what waited."""
        with self._lock:
            self.goal_id = goal_id
            if self._draining or not self._queue:
                return
            self._draining = True
        self._drain()

    def __call__(self, feedback: Any) -> None:
        with self._lock:
            self._queue.append(feedback)
            if self.goal_id is None or self._draining:
                return
            self._draining = True
        self._drain()

    def _drain(self) -> None:
        try:
            while True:
                with self._lock:
                    if not self._queue:
                        self._draining = False
                        return
                    feedback = self._queue.popleft()
                    goal_id = self.goal_id
                self._callback(self._message(goal_id=self._uuid(uuid=goal_id), feedback=feedback))
        except BaseException:
            with self._lock:
                self._draining = False
            raise
