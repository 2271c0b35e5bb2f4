"""``Duration`` (rclpy's ``rclpy.duration``): a signed span in nanoseconds."""

from __future__ import annotations

from typing import Any, Union

S_TO_NS = 1_000_000_000


class Duration:
    """A period between two time points, with nanosecond precision; may be negative."""

    __slots__ = ("_ns",)

    def __init__(self, *, seconds: Union[int, float] = 0, nanoseconds: int = 0) -> None:
        total = int(seconds * S_TO_NS) + int(nanoseconds)
        if total >= 2**63 or total < -2**63:
            raise OverflowError("Total nanoseconds value is too large to store in C duration.")
        self._ns = total

    @property
    def nanoseconds(self) -> int:
        return self._ns

    def __repr__(self) -> str:
        return f"Duration(nanoseconds={self._ns})"

    def __str__(self) -> str:
        return f"{self._ns} nanoseconds"

    def __hash__(self) -> int:
        return hash(self._ns)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Duration):
            return self._ns == other._ns
        return NotImplemented

    def __lt__(self, other: "Duration") -> bool:
        if isinstance(other, Duration):
            return self._ns < other._ns
        return NotImplemented

    def __le__(self, other: "Duration") -> bool:
        if isinstance(other, Duration):
            return self._ns <= other._ns
        return NotImplemented

    def __gt__(self, other: "Duration") -> bool:
        if isinstance(other, Duration):
            return self._ns > other._ns
        return NotImplemented

    def __ge__(self, other: "Duration") -> bool:
        if isinstance(other, Duration):
            return self._ns >= other._ns
        return NotImplemented

    def to_msg(self) -> Any:
        """As a ``builtin_interfaces/Duration``."""
        from .msg.builtin_interfaces import Duration as DurationMsg

        sec, nanosec = divmod(self._ns, S_TO_NS)
        return DurationMsg(sec=sec, nanosec=nanosec)

    @classmethod
    def from_msg(cls, msg: Any) -> "Duration":
        return cls(seconds=msg.sec, nanoseconds=msg.nanosec)


# rclpy's ``Infinite``: the largest duration.
Infinite = Duration(nanoseconds=2**63 - 1)
