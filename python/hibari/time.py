"""``Time`` (rclpy's ``rclpy.time``): a point of one clock, in nanoseconds since its epoch."""

from __future__ import annotations

from typing import Any, Tuple, Union

from .clock_type import ClockType
from .duration import S_TO_NS, Duration


class Time:
    """A point in time of one ``ClockType``; times of different clocks neither compare nor
    subtract (``TypeError``), as in rclpy."""

    __slots__ = ("_ns", "_clock_type")

    def __init__(self, *, seconds: Union[int, float] = 0, nanoseconds: int = 0,
                 clock_type: ClockType = ClockType.SYSTEM_TIME) -> None:
        if not isinstance(clock_type, ClockType):
            raise TypeError("Clock type must be a ClockType enum")
        if seconds < 0:
            raise ValueError("Seconds value must not be negative")
        if nanoseconds < 0:
            raise ValueError("Nanoseconds value must not be negative")
        total = int(seconds * S_TO_NS) + int(nanoseconds)
        if total >= 2**63:
            raise OverflowError("Total nanoseconds value is too large to store in C time point.")
        self._ns = total
        self._clock_type = clock_type

    @property
    def nanoseconds(self) -> int:
        """The nanoseconds since the clock's epoch."""
        return self._ns

    def seconds_nanoseconds(self) -> Tuple[int, int]:
        return (self._ns // S_TO_NS, self._ns % S_TO_NS)

    @property
    def clock_type(self) -> ClockType:
        return self._clock_type

    def __repr__(self) -> str:
        return f"Time(nanoseconds={self._ns}, clock_type={self._clock_type.name})"

    def __add__(self, other: Duration) -> "Time":
        if isinstance(other, Duration):
            try:
                return Time(nanoseconds=self._ns + other.nanoseconds, clock_type=self._clock_type)
            except OverflowError as e:
                raise OverflowError("Addition leads to overflow in C storage.") from e
        return NotImplemented

    def __radd__(self, other: Duration) -> "Time":
        return self.__add__(other)

    def __sub__(self, other: Any) -> Any:
        if isinstance(other, Time):
            if self._clock_type != other._clock_type:
                raise TypeError("Can't subtract times with different clock types")
            return Duration(nanoseconds=self._ns - other._ns)
        if isinstance(other, Duration):
            try:
                return Time(nanoseconds=self._ns - other.nanoseconds, clock_type=self._clock_type)
            except ValueError as e:
                raise ValueError("Subtraction leads to negative time.") from e
        return NotImplemented

    def _key(self, other: object, what: str) -> int:
        assert isinstance(other, Time)
        if self._clock_type != other._clock_type:
            raise TypeError(f"Can't {what} times with different clock types")
        return other._ns

    def __hash__(self) -> int:
        return hash((self._ns, self._clock_type))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Time):
            return self._ns == self._key(other, "compare")
        return NotImplemented

    def __lt__(self, other: "Time") -> bool:
        if isinstance(other, Time):
            return self._ns < self._key(other, "compare")
        return NotImplemented

    def __le__(self, other: "Time") -> bool:
        if isinstance(other, Time):
            return self._ns <= self._key(other, "compare")
        return NotImplemented

    def __gt__(self, other: "Time") -> bool:
        if isinstance(other, Time):
            return self._ns > self._key(other, "compare")
        return NotImplemented

    def __ge__(self, other: "Time") -> bool:
        if isinstance(other, Time):
            return self._ns >= self._key(other, "compare")
        return NotImplemented

    def to_msg(self) -> Any:
        """As a ``builtin_interfaces/Time``."""
        from .msg.builtin_interfaces import Time as TimeMsg

        sec, nanosec = self.seconds_nanoseconds()
        return TimeMsg(sec=sec, nanosec=nanosec)

    @classmethod
    def from_msg(cls, msg: Any, clock_type: ClockType = ClockType.ROS_TIME) -> "Time":
        if not isinstance(clock_type, ClockType):
            raise TypeError("Clock type must be a ClockType enum")
        return cls(seconds=msg.sec, nanoseconds=msg.nanosec, clock_type=clock_type)
