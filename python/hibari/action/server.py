"""The server side of actions: rclpy's ``ActionServer`` and ``ServerGoalHandle``.

The protocol runs in Rust (the goal table and its state machine, the status
topic, results kept ``result_timeout`` seconds, one answer per client). The
goal, cancel and handle-accepted callbacks run on the executor spinning the
node, as in rclpy. The execute callback of each goal runs on a thread of its
own, started by ``goal_handle.execute()``: a long goal never holds up the
executor, so cancel requests, other goals and the node's other callbacks go
on with any executor (rclpy needs a ``MultiThreadedExecutor`` for that). An
``async def`` execute callback runs in an asyncio loop on that thread.

As in rclpy, ``succeed()``, ``abort()`` and ``canceled()`` set how the goal
ends, and the execute callback's return value is its result; a callback that
returns without ending its goal aborts it (with a warning), and one that
raises aborts it with an empty result (the error is logged).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import traceback
import weakref
from enum import Enum
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

from .. import _hibari

if TYPE_CHECKING:
    from ..node import Node

__all__ = ["ActionServer", "ServerGoalHandle", "GoalResponse", "CancelResponse",
           "default_goal_callback", "default_cancel_callback", "default_handle_accepted_callback"]

# action_msgs/msg/GoalStatus
_ACCEPTED, _EXECUTING, _CANCELING, _SUCCEEDED, _CANCELED, _ABORTED = 1, 2, 3, 4, 5, 6
# The states each ending may leave (rcl_action's goal state machine).
_ENDS_FROM = {_SUCCEEDED: (_EXECUTING, _CANCELING), _ABORTED: (_EXECUTING, _CANCELING),
              _CANCELED: (_CANCELING,)}


def _action_type_name(action_type: Any) -> str:
    """``pkg/action/Name`` of an action class from ``hibari.msg``."""
    from ..msg import ActionType

    if not (isinstance(action_type, type) and issubclass(action_type, ActionType)):
        raise TypeError(f"expected an action class from hibari.msg (like "
                        f"hibari.msg.example_interfaces.action.Fibonacci), got {action_type!r}")
    return action_type._type


class GoalResponse(Enum):
    """What a goal callback answers."""
    REJECT = 1
    ACCEPT = 2


class CancelResponse(Enum):
    """What a cancel callback answers."""
    REJECT = 1
    ACCEPT = 2


def default_goal_callback(goal_request: Any) -> GoalResponse:
    """Accepts every goal."""
    return GoalResponse.ACCEPT


def default_cancel_callback(goal_handle: "ServerGoalHandle") -> CancelResponse:
    """Rejects every cancel request (rclpy's default)."""
    return CancelResponse.REJECT


def default_handle_accepted_callback(goal_handle: "ServerGoalHandle") -> None:
    """Executes every accepted goal at once."""
    goal_handle.execute()


class ServerGoalHandle:
    """An accepted goal at the server: its request, id and status; publish
    feedback and say how it ends."""

    def __init__(self, server: "ActionServer", inner: Any, request: Any) -> None:
        from ..msg.unique_identifier_msgs import UUID  # type: ignore[attr-defined]

        self._server = server
        self._inner = inner
        self._request = request
        self._goal_id = UUID(uuid=inner.goal_id)
        self._end: Optional[int] = None  # set by succeed/abort/canceled
        self._lock = threading.Lock()

    @property
    def request(self) -> Any:
        """The goal (the action's ``Goal`` message)."""
        return self._request

    @property
    def goal_id(self) -> Any:
        """The goal's ``unique_identifier_msgs/UUID``."""
        return self._goal_id

    @property
    def status(self) -> int:
        """The ``action_msgs/msg/GoalStatus`` number of the goal now."""
        with self._lock:
            return self._end if self._end is not None else int(self._inner.status())

    @property
    def is_active(self) -> bool:
        return self.status in (_ACCEPTED, _EXECUTING, _CANCELING)

    @property
    def is_cancel_requested(self) -> bool:
        return self.status == _CANCELING

    def execute(self, execute_callback: Optional[Callable[["ServerGoalHandle"], Any]] = None) -> None:
        """Starts executing the goal: ``execute_callback`` (default: the
        server's) runs on a thread of its own. As in rclpy, a goal whose
        cancel was accepted meanwhile runs its callback without becoming
        EXECUTING (so it can end canceled), and a goal executing already
        raises ``HibariError``."""
        if not self.is_cancel_requested:
            self._inner.execute()
        self._server._start(self, execute_callback or self._server._execute_callback)

    def publish_feedback(self, feedback: Any) -> None:
        """Publishes ``feedback`` (the action's ``Feedback`` message)."""
        expected = self._server._action_type.Feedback
        if not isinstance(feedback, expected):
            raise TypeError(f"expected a {expected.__name__}, got {type(feedback).__name__}")
        self._inner.publish_feedback(feedback)

    def _set_end(self, end: int) -> None:
        with self._lock:
            now = self._end if self._end is not None else int(self._inner.status())
            if now not in _ENDS_FROM[end]:
                raise _hibari.HibariError(
                    f"the goal cannot end with status {end} from status {now}")
            self._end = end

    def succeed(self) -> None:
        """The goal succeeded (its result is what the execute callback returns)."""
        self._set_end(_SUCCEEDED)

    def abort(self) -> None:
        """The goal was aborted."""
        self._set_end(_ABORTED)

    def canceled(self) -> None:
        """The goal was canceled (after an accepted cancel request)."""
        self._set_end(_CANCELED)

    def _finish(self, result: Any) -> None:
        with self._lock:
            end = self._end if self._end is not None else _ABORTED
        self._inner.finish(end, result)

    def destroy(self) -> None:
        """Nothing to release: the goal's state lives with the server."""


class ActionServer:
    """Serves the action ``action_name`` of type ``action_type`` on ``node``
    (rclpy's ``ActionServer``). The QoS keywords are accepted for rclpy's
    sake; the server uses ROS 2's action defaults."""

    def __init__(self, node: "Node", action_type: Any, action_name: str,
                 execute_callback: Callable[[ServerGoalHandle], Any], *,
                 callback_group: Any = None,
                 goal_callback: Callable[[Any], GoalResponse] = default_goal_callback,
                 handle_accepted_callback: Callable[[ServerGoalHandle], None] = default_handle_accepted_callback,
                 cancel_callback: Callable[[ServerGoalHandle], CancelResponse] = default_cancel_callback,
                 result_timeout: float = 900, **_qos: Any) -> None:
        from ..node import _group

        self._node = node
        self._action_type = action_type
        self._execute_callback = execute_callback
        self._goal_callback = goal_callback
        self._handle_accepted_callback = handle_accepted_callback
        self._cancel_callback = cancel_callback
        self._handles: Dict[bytes, ServerGoalHandle] = {}
        self._lock = threading.Lock()
        me = weakref.ref(self)
        self._inner = _hibari.ActionServer(
            node._inner, _action_type_name(action_type), action_name, float(result_timeout),
            lambda goal_id, goal: _call(me, "_on_goal", goal_id, goal),
            lambda goal_id: _call(me, "_on_cancel", goal_id),
            lambda inner: _call(me, "_on_accepted", inner),
            None if callback_group is None else _group(callback_group, node))
        node._keep(self)

    @property
    def action_type(self) -> Any:
        return self._action_type

    @property
    def action_name(self) -> str:
        return str(self._inner.action_name)

    def register_goal_callback(self, goal_callback: Optional[Callable[[Any], GoalResponse]]) -> None:
        """Replaces the goal callback (None: accept every goal)."""
        self._goal_callback = goal_callback or default_goal_callback

    def register_cancel_callback(
            self, cancel_callback: Optional[Callable[[ServerGoalHandle], CancelResponse]]) -> None:
        """Replaces the cancel callback (None: reject every cancel)."""
        self._cancel_callback = cancel_callback or default_cancel_callback

    def register_handle_accepted_callback(
            self, callback: Optional[Callable[[ServerGoalHandle], None]]) -> None:
        """Replaces the handle-accepted callback (None: execute at once)."""
        self._handle_accepted_callback = callback or default_handle_accepted_callback

    def register_execute_callback(self, execute_callback: Callable[[ServerGoalHandle], Any]) -> None:
        if not callable(execute_callback):
            raise TypeError("the execute callback must be callable")
        self._execute_callback = execute_callback

    def _on_goal(self, goal_id: bytes, goal: Any) -> bool:
        return self._goal_callback(goal) == GoalResponse.ACCEPT

    def _on_cancel(self, goal_id: bytes) -> bool:
        with self._lock:
            handle = self._handles.get(goal_id)
        if handle is None:
            return False
        return self._cancel_callback(handle) == CancelResponse.ACCEPT

    def _on_accepted(self, inner: Any) -> None:
        handle = ServerGoalHandle(self, inner, inner.goal)
        with self._lock:
            self._handles[bytes(inner.goal_id)] = handle
        self._handle_accepted_callback(handle)

    def _start(self, handle: ServerGoalHandle, callback: Callable[[ServerGoalHandle], Any]) -> None:
        thread = threading.Thread(target=self._execute, args=(handle, callback), daemon=True,
                                  name=f"hibari-action {self.action_name}")
        thread.start()

    def _execute(self, handle: ServerGoalHandle, callback: Callable[[ServerGoalHandle], Any]) -> None:
        logger = self._node.get_logger()
        result: Any = None
        try:
            result = callback(handle)
            if inspect.isawaitable(result):
                result = asyncio.run(_awaited(result))
        except Exception as e:  # noqa: BLE001 -- rclpy's rule: log, end the goal aborted
            logger.error(f"Error raised in execute callback: {e}")
            traceback.print_exc()
            result = None
        if result is None or not isinstance(result, self._action_type.Result):
            if result is not None:
                logger.error(f"The execute callback returned a {type(result).__name__}, "
                             f"not a {self._action_type.Result.__name__}: the result is empty")
            result = self._action_type.Result()
        if handle._end is None and handle.is_active:
            logger.warning(f"Goal state not set, assuming aborted. Goal ID: {handle.goal_id.uuid}")
        try:
            handle._finish(result)
        finally:
            with self._lock:
                self._handles.pop(bytes(handle._inner.goal_id), None)

    def destroy(self) -> None:
        """Stops serving (the node drops the server)."""
        self._node._destroy(self)


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _call(server: "weakref.ref[ActionServer]", method: str, *args: Any) -> Any:
    """Calls a method of the server if it still exists (the extension holds
    these functions; the server must not be kept alive by them)."""
    me = server()
    if me is None:
        return False
    return getattr(me, method)(*args)
