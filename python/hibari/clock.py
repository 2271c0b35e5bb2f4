"""Clocks (rclpy's ``rclpy.clock``): ``Clock``, ``ROSClock``, jump callbacks.

A node's clock (``node.get_clock()``) is a ``ROSClock`` of the Rust runtime: it reads system
time until the node's ``use_sim_time`` parameter is true, then the time last published on
``/clock`` (zero until the first message). Its timers (``create_timer``) and rates
(``create_rate``) run on that time; jump callbacks hear of ROS time being activated or
deactivated and of jumps past their thresholds. The callbacks run on the thread that moved
the clock (for simulated time, the node's ``/clock`` thread).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Callable, Optional, Type

from . import _hibari
from .clock_type import ClockType
from .context import Context, get_default_context
from .duration import Duration
from .exceptions import NotInitializedException
from .time import Time

__all__ = ["Clock", "ClockChange", "ClockType", "JumpHandle", "JumpThreshold", "ROSClock",
           "TimeJump"]


class ClockChange(IntEnum):
    ROS_TIME_NO_CHANGE = 1
    ROS_TIME_ACTIVATED = 2
    ROS_TIME_DEACTIVATED = 3
    SYSTEM_TIME_NO_CHANGE = 4


class JumpThreshold:
    """Which jumps call a jump callback: forward by at least ``min_forward`` (positive), back
    by at least ``min_backward`` (negative), and activations of ROS time."""

    def __init__(self, *, min_forward: Optional[Duration], min_backward: Optional[Duration],
                 on_clock_change: bool = True) -> None:
        if min_forward is not None and min_forward.nanoseconds <= 0:
            raise ValueError("min_forward must be a positive non-zero duration")
        if min_backward is not None and min_backward.nanoseconds >= 0:
            raise ValueError("min_backward must be a negative non-zero duration")
        if min_forward is None and min_backward is None and not on_clock_change:
            raise ValueError("At least one jump threshold must be enabled")
        self.min_forward = min_forward
        self.min_backward = min_backward
        self.on_clock_change = on_clock_change


class TimeJump:
    def __init__(self, clock_change: ClockChange, delta: Duration) -> None:
        if not isinstance(clock_change, ClockChange):
            raise TypeError("clock_change must be an instance of rclpy.clock.ClockChange")
        self._clock_change = clock_change
        self._delta = delta

    @property
    def clock_change(self) -> ClockChange:
        return self._clock_change

    @property
    def delta(self) -> Duration:
        return self._delta


class JumpHandle:
    """Keeps a jump callback registered until ``unregister`` (or the end of a ``with``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def unregister(self) -> None:
        self._inner.unregister()

    def __enter__(self) -> "JumpHandle":
        return self

    def __exit__(self, t: Optional[Type[BaseException]], v: Optional[BaseException],
                 tb: Any) -> None:
        self.unregister()


class Clock:
    """A clock of ``clock_type`` (``Clock(clock_type=ClockType.ROS_TIME)`` is a ``ROSClock``)."""

    _inner: Any

    def __new__(cls, *, clock_type: ClockType = ClockType.SYSTEM_TIME) -> "Clock":
        if not isinstance(clock_type, ClockType):
            raise TypeError("Clock type must be a ClockType enum")
        if clock_type is ClockType.ROS_TIME and cls is Clock:
            cls = ROSClock
        self = object.__new__(cls)
        self._inner = _hibari.Clock(int(clock_type))
        return self

    @classmethod
    def _wrap(cls, inner: Any) -> "Clock":
        self = object.__new__(ROSClock if inner.clock_type == ClockType.ROS_TIME else Clock)
        self._inner = inner
        return self

    @property
    def clock_type(self) -> ClockType:
        return ClockType(self._inner.clock_type)

    def __repr__(self) -> str:
        return f"Clock(clock_type={self.clock_type.name})"

    def now(self) -> Time:
        return Time(nanoseconds=self._inner.now_ns(), clock_type=self.clock_type)

    def create_jump_callback(self, threshold: JumpThreshold, *,
                             pre_callback: Optional[Callable[[], Any]] = None,
                             post_callback: Optional[Callable[[TimeJump], Any]] = None
                             ) -> JumpHandle:
        if pre_callback is not None and not callable(pre_callback):
            raise ValueError("pre_callback must be callable if given")
        if post_callback is not None and not callable(post_callback):
            raise ValueError("post_callback must be callable if given")
        post: Optional[Callable[[int, int], Any]] = None
        if post_callback is not None:
            callback = post_callback

            def post(change: int, delta_ns: int) -> None:
                callback(TimeJump(ClockChange(change), Duration(nanoseconds=delta_ns)))

        return JumpHandle(self._inner.create_jump_callback(
            threshold.on_clock_change,
            None if threshold.min_forward is None else threshold.min_forward.nanoseconds,
            None if threshold.min_backward is None else threshold.min_backward.nanoseconds,
            pre_callback, post))

    def sleep_until(self, until: Time, context: Optional[Context] = None) -> bool:
        """Sleeps until the clock reads ``until``; ``False`` when it woke for another reason
        (ROS time activated or deactivated, ``context`` shut down). On a ROS clock with
        simulated time it waits for ``/clock`` to get there."""
        context = context or get_default_context()
        if not context.ok():
            raise NotInitializedException()
        if until.clock_type != self.clock_type:
            raise ValueError("until's clock type does not match this clock's type")
        if self._inner.sleep_until_ns(until.nanoseconds, context._inner) != 0:
            return False
        return self.now() >= until

    def sleep_for(self, rel_time: Duration, context: Optional[Context] = None) -> bool:
        return self.sleep_until(self.now() + rel_time, context)


class ROSClock(Clock):
    """A clock of ROS time: system time, or the override while ROS time is active."""

    def __new__(cls) -> "ROSClock":  # type: ignore[misc]
        self = object.__new__(cls)
        self._inner = _hibari.Clock(int(ClockType.ROS_TIME))
        return self

    @property
    def ros_time_is_active(self) -> bool:
        return bool(self._inner.ros_time_is_active)

    def _set_ros_time_is_active(self, enabled: bool) -> None:
        self._inner.set_ros_time_is_active(bool(enabled))

    def set_ros_time_override(self, time: Time) -> None:
        if not isinstance(time, Time):
            raise TypeError("Time must be specified as rclpy.time.Time")
        self._inner.set_ros_time_override(time.nanoseconds)
