"""The context (one domain and its transport) and the process's default one.

``hibari.init()`` creates the default context from the program's arguments
(remapping rules after ``--ros-args``) and ``ROS_DOMAIN_ID``;
``hibari.shutdown()`` shuts it down, which makes every executor spinning its
nodes return. Tests that want a world of their own use
``Context(isolated=True)``.
"""

from __future__ import annotations

import sys
import threading
from typing import List, Optional

from . import _hibari

__all__ = ["Context", "init", "shutdown", "try_shutdown", "ok", "get_default_context"]


class Context:
    """One domain, its transport and a shutdown switch (rclpy's ``Context``)."""

    def __init__(self, args: Optional[List[str]] = None, *, domain_id: Optional[int] = None,
                 isolated: bool = False) -> None:
        self._inner = _hibari.Context(list(args) if args is not None else None, domain_id, isolated)

    def ok(self) -> bool:
        """Whether the context is not shut down."""
        return bool(self._inner.ok())

    def shutdown(self) -> None:
        """Stops every executor spinning this context's nodes."""
        self._inner.shutdown()

    def try_shutdown(self) -> None:
        self._inner.shutdown()

    @property
    def domain_id(self) -> int:
        return int(self._inner.domain_id)

    def has_interprocess(self) -> bool:
        """Whether messages reach other processes (not only this one)."""
        return bool(self._inner.has_interprocess())


_lock = threading.Lock()
_default: Optional[Context] = None


def init(args: Optional[List[str]] = None, *, context: Optional[Context] = None,
         domain_id: Optional[int] = None) -> Context:
    """Creates the default context (``args`` default to ``sys.argv``).

    Raises ``RuntimeError`` if it exists and is not shut down (as rclpy).
    Passing ``context`` makes that context the default.
    """
    global _default
    with _lock:
        if _default is not None and _default.ok():
            raise RuntimeError("hibari.init() was already called: call hibari.shutdown() first")
        _default = context if context is not None else Context(
            sys.argv if args is None else args, domain_id=domain_id)
        return _default


def get_default_context() -> Context:
    """The default context; raises ``RuntimeError`` before ``init()``."""
    context = _default
    if context is None:
        raise RuntimeError("hibari.init() has not been called (or pass context= to the Node)")
    return context


def ok(*, context: Optional[Context] = None) -> bool:
    """Whether the (default) context is initialized and not shut down."""
    context = context or _default
    return context is not None and context.ok()


def shutdown(*, context: Optional[Context] = None) -> None:
    """Shuts the (default) context down; its executors return."""
    global _default
    with _lock:
        target = context or _default
        if target is None:
            raise RuntimeError("hibari.init() has not been called")
        target.shutdown()
        if target is _default:
            _default = None
    from . import executors

    executors._reset_global_executor()


def try_shutdown(*, context: Optional[Context] = None) -> None:
    """``shutdown()`` that does nothing when there is nothing to shut down."""
    try:
        shutdown(context=context)
    except RuntimeError:
        pass
