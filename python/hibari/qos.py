"""Quality of service, as rclpy spells it.

A ``QoSProfile`` is what a publisher offers or a subscription requests:
reliability, history and depth, durability, deadline, lifespan and
liveliness. Wherever a profile is taken, an ``int`` is accepted too: keep
last that many, reliable, volatile (rclpy's shorthand). The named profiles
(``qos_profile_sensor_data`` …) are read from the Rust runtime, so they are
exactly hibari's.

Semantics (see hibari's QoS documentation): a reliable subscription never
loses a queued message — a full queue makes the publisher wait (up to
100 ms) or fail; a best-effort one drops its oldest message and counts it in
``SampleInfo.lost_before``. A transient-local subscription matched with a
transient-local publisher first receives the publisher's last ``depth``
messages.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Optional, Tuple, Union

from . import _hibari

__all__ = [
    "QoSProfile",
    "ReliabilityPolicy",
    "HistoryPolicy",
    "DurabilityPolicy",
    "LivelinessPolicy",
    "QoSPresetProfiles",
    "qos_profile_default",
    "qos_profile_sensor_data",
    "qos_profile_services_default",
    "qos_profile_parameters",
    "qos_profile_parameter_events",
    "qos_profile_rosout_default",
    "qos_profile_clock",
    "qos_profile_system_default",
    "QoSLike",
]


class ReliabilityPolicy(IntEnum):
    SYSTEM_DEFAULT = 0
    RELIABLE = 1
    BEST_EFFORT = 2


class HistoryPolicy(IntEnum):
    SYSTEM_DEFAULT = 0
    KEEP_LAST = 1
    KEEP_ALL = 2


class DurabilityPolicy(IntEnum):
    SYSTEM_DEFAULT = 0
    TRANSIENT_LOCAL = 1
    VOLATILE = 2


class LivelinessPolicy(IntEnum):
    SYSTEM_DEFAULT = 0
    AUTOMATIC = 1
    MANUAL_BY_TOPIC = 3


_NAMES = {
    ReliabilityPolicy: {0: "system_default", 1: "reliable", 2: "best_effort"},
    HistoryPolicy: {0: "system_default", 1: "keep_last", 2: "keep_all"},
    DurabilityPolicy: {0: "system_default", 1: "transient_local", 2: "volatile"},
    LivelinessPolicy: {0: "system_default", 1: "automatic", 3: "manual_by_topic"},
}


def _ns(value: Any) -> Optional[int]:
    """Duration → ns; None or 0 means infinite (rclpy's default Duration())."""
    if value is None:
        return None
    ns = getattr(value, "nanoseconds", None)
    if ns is None:
        seconds = float(value)
        if seconds < 0:
            raise ValueError(f"a duration cannot be negative: {value}")
        ns = int(round(seconds * 1e9))
    return int(ns) or None


class QoSProfile:
    """A QoS profile (rclpy's ``QoSProfile``); durations are seconds (float)
    or objects with ``nanoseconds``; None or 0 is infinite."""

    __slots__ = ("reliability", "history", "depth", "durability", "deadline", "lifespan",
                 "liveliness", "liveliness_lease_duration")

    def __init__(
        self,
        *,
        history: HistoryPolicy = HistoryPolicy.KEEP_LAST,
        depth: Optional[int] = None,
        reliability: ReliabilityPolicy = ReliabilityPolicy.RELIABLE,
        durability: DurabilityPolicy = DurabilityPolicy.VOLATILE,
        deadline: Any = None,
        lifespan: Any = None,
        liveliness: LivelinessPolicy = LivelinessPolicy.AUTOMATIC,
        liveliness_lease_duration: Any = None,
    ) -> None:
        history = HistoryPolicy(history)
        if depth is None and history == HistoryPolicy.KEEP_LAST:
            raise ValueError("a keep-last QoSProfile needs a depth: QoSProfile(depth=10)")
        if depth is not None and (not isinstance(depth, int) or depth < 0):
            raise ValueError(f"depth must be a non-negative int, got {depth!r}")
        self.history = history
        self.depth = 0 if depth is None else depth
        self.reliability = ReliabilityPolicy(reliability)
        self.durability = DurabilityPolicy(durability)
        self.deadline = deadline
        self.lifespan = lifespan
        self.liveliness = LivelinessPolicy(liveliness)
        self.liveliness_lease_duration = liveliness_lease_duration

    def _as_tuple(self) -> Tuple[Any, ...]:
        return (
            _NAMES[ReliabilityPolicy][int(self.reliability)],
            _NAMES[HistoryPolicy][int(self.history)],
            int(self.depth),
            _NAMES[DurabilityPolicy][int(self.durability)],
            _ns(self.deadline),
            _ns(self.lifespan),
            _NAMES[LivelinessPolicy][int(self.liveliness)],
            _ns(self.liveliness_lease_duration),
        )

    @classmethod
    def _from_tuple(cls, t: Tuple[Any, ...]) -> "QoSProfile":
        reliability, history, depth, durability, deadline, lifespan, liveliness, lease = t

        def back(enum: Any, name: str) -> Any:
            return enum({v: k for k, v in _NAMES[enum].items()}[name])

        secs = (lambda ns: None if ns is None else ns / 1e9)
        return cls(
            history=back(HistoryPolicy, history),
            depth=depth,
            reliability=back(ReliabilityPolicy, reliability),
            durability=back(DurabilityPolicy, durability),
            deadline=secs(deadline),
            lifespan=secs(lifespan),
            liveliness=back(LivelinessPolicy, liveliness),
            liveliness_lease_duration=secs(lease),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QoSProfile) and self._as_tuple() == other._as_tuple()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"QoSProfile({fields})"


QoSLike = Union[QoSProfile, int]


def as_tuple(qos: QoSLike) -> Tuple[Any, ...]:
    """The tuple the extension module takes, from a profile or a depth."""
    if isinstance(qos, QoSProfile):
        return qos._as_tuple()
    if isinstance(qos, int) and not isinstance(qos, bool):
        return QoSProfile(depth=qos)._as_tuple()
    raise TypeError(f"expected a QoSProfile or a history depth (int), got {type(qos).__name__}")


def _preset(name: str) -> QoSProfile:
    return QoSProfile._from_tuple(_hibari.qos_preset(name))


qos_profile_default = _preset("default")
qos_profile_sensor_data = _preset("sensor_data")
qos_profile_services_default = _preset("services_default")
qos_profile_parameters = _preset("parameters")
qos_profile_parameter_events = _preset("parameter_events")
qos_profile_rosout_default = _preset("rosout")
qos_profile_clock = _preset("clock")
qos_profile_system_default = _preset("system_default")


class QoSPresetProfiles:
    """The named profiles (rclpy's enum), as attributes."""

    DEFAULT = qos_profile_default
    SENSOR_DATA = qos_profile_sensor_data
    SERVICES_DEFAULT = qos_profile_services_default
    PARAMETERS = qos_profile_parameters
    PARAMETER_EVENTS = qos_profile_parameter_events
    ROSOUT = qos_profile_rosout_default
    CLOCK = qos_profile_clock
    SYSTEM_DEFAULT = qos_profile_system_default
