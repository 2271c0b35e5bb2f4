"""Logging as rclpy logs (``rclpy.logging``): ``node.get_logger()`` is an
``RcutilsLogger`` whose ``debug``/``info``/``warn``/``error``/``fatal``
write ROS 2's console line and publish on ``/rosout``, through the same Rust
loggers as hibari's Rust nodes (levels from ``--ros-args --log-level``,
``RCUTILS_CONSOLE_OUTPUT_FORMAT`` and friends). ``once``, ``skip_first``
and ``throttle_duration_sec`` hold per call site, as in rclpy.
"""

from __future__ import annotations

import sys
import threading
import time
from enum import IntEnum
from typing import Any, Dict, Tuple, Union

from . import _hibari

__all__ = ["LoggingSeverity", "RcutilsLogger", "get_logger"]


class LoggingSeverity(IntEnum):
    """rcutils' levels."""

    UNSET = 0
    DEBUG = 10
    INFO = 20
    WARN = 30
    ERROR = 40
    FATAL = 50


_sites: Dict[Tuple[str, int, str], Dict[str, Any]] = {}
_sites_lock = threading.Lock()


def _passes(site: Tuple[str, int, str], once: bool, skip_first: bool, throttle: float) -> bool:
    """The call site's conditions (all that are given must hold)."""
    with _sites_lock:
        state = _sites.setdefault(site, {"done": False, "count": 0, "last": None})
        state["count"] += 1
        if once:
            if state["done"]:
                return False
            state["done"] = True
        if skip_first and state["count"] == 1:
            return False
        if throttle > 0:
            now = time.monotonic()
            if state["last"] is not None and now - state["last"] < throttle:
                return False
            state["last"] = now
        return True


class RcutilsLogger:
    """A named logger (rclpy's ``RcutilsLogger``)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    @property
    def name(self) -> str:
        return str(self._inner.name)

    def get_child(self, name: str) -> "RcutilsLogger":
        return RcutilsLogger(self._inner.get_child(name))

    def set_level(self, level: Union[int, LoggingSeverity]) -> None:
        self._inner.set_level(int(level))

    def get_effective_level(self) -> LoggingSeverity:
        return LoggingSeverity(self._inner.get_effective_level())

    def is_enabled_for(self, severity: Union[int, LoggingSeverity]) -> bool:
        return bool(self._inner.is_enabled_for(int(severity)))

    def log(self, message: Any, severity: Union[int, LoggingSeverity], **kwargs: Any) -> bool:
        """Writes ``message`` at ``severity``; whether it was written."""
        return self._log(int(severity), message, kwargs, depth=2)

    def _log(self, severity: int, message: Any, kwargs: Dict[str, Any], depth: int) -> bool:
        if not self._inner.is_enabled_for(severity):
            return False
        frame = sys._getframe(depth)
        site = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        throttle = float(kwargs.get("throttle_duration_sec") or 0.0)
        if not _passes(site, bool(kwargs.get("once")), bool(kwargs.get("skip_first")), throttle):
            return False
        return bool(self._inner.log(severity, str(message), *site[:1], site[2], site[1]))

    def debug(self, message: Any, **kwargs: Any) -> bool:
        return self._log(10, message, kwargs, depth=2)

    def info(self, message: Any, **kwargs: Any) -> bool:
        return self._log(20, message, kwargs, depth=2)

    def warn(self, message: Any, **kwargs: Any) -> bool:
        return self._log(30, message, kwargs, depth=2)

    warning = warn

    def error(self, message: Any, **kwargs: Any) -> bool:
        return self._log(40, message, kwargs, depth=2)

    def fatal(self, message: Any, **kwargs: Any) -> bool:
        return self._log(50, message, kwargs, depth=2)


def get_logger(name: str) -> RcutilsLogger:
    """A logger of its own, to the console only."""
    return RcutilsLogger(_hibari.Logger.named(name))
