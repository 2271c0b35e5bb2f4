"""``Rate`` (rclpy's ``rclpy.timer.Rate``): a loop at a fixed frequency of a clock's time."""

from __future__ import annotations

from .clock import Clock
from .context import Context
from .duration import Duration
from .exceptions import ROSInterruptException
from .time import Time


class Rate:
    """Made by ``node.create_rate(frequency)``: ``sleep()`` returns one period after the
    previous one, in the clock's time (simulated time with ``use_sim_time``: it waits while
    ``/clock`` stands still). It needs no executor. When the loop runs late by more than a
    period, the schedule restarts from now instead of catching up in a burst (rclcpp's
    algorithm). ``sleep()`` raises ``ROSInterruptException`` when the context shuts down."""

    def __init__(self, clock: Clock, period: Duration, *, context: Context) -> None:
        if period.nanoseconds <= 0:
            raise ValueError("frequency must be > 0")
        self._clock = clock
        self._period = period
        self._context = context
        self._last: Time = clock.now()
        self._destroyed = False

    def destroy(self) -> None:
        self._destroyed = True

    def sleep(self) -> None:
        if self._destroyed:
            raise RuntimeError("Rate cannot sleep because it has been destroyed")
        if not self._context.ok():
            raise ROSInterruptException()
        now = self._clock.now()
        nxt = self._last + self._period
        if now < self._last:  # time went back: a simulation restarted
            nxt = now + self._period
        self._last = nxt
        if nxt <= now:
            if now > nxt + self._period:
                self._last = now
            return
        reached = self._clock.sleep_until(nxt, self._context)
        if not self._context.ok():
            raise ROSInterruptException()
        if not reached:  # ROS time (de)activated: start over in the new time
            self._last = self._clock.now()

