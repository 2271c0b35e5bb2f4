"""Executors: they run the callbacks of the nodes added to them.

``SingleThreadedExecutor`` runs callbacks one at a time on the thread that
spins it; ``MultiThreadedExecutor`` on a pool of threads, as callback groups
allow: a node's callbacks run one at a time in its default (mutually
exclusive) group, callbacks of a ``ReentrantCallbackGroup`` or of different
groups may overlap. Python callbacks take the GIL, so the pool helps when
callbacks wait, e.g. on I/O, sleeps or service calls. Waiting is done in Rust
with the GIL released, without polling; Ctrl-C interrupts a spin. An
exception raised by a callback stops the spin and is raised from it.

The module functions ``spin``, ``spin_once`` and
``spin_until_future_complete`` use one process-wide executor, as rclpy does.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any, List, Optional

from . import _hibari
from .futures import Future

if TYPE_CHECKING:
    from .node import Node

__all__ = [
    "Executor",
    "SingleThreadedExecutor",
    "MultiThreadedExecutor",
    "spin",
    "spin_once",
    "spin_until_future_complete",
    "get_global_executor",
]


class Executor:
    """Base of the executors; ``threads`` None is single-threaded."""

    def __init__(self, *, threads: Optional[int] = None) -> None:
        self._inner = _hibari.Executor(threads)
        self._nodes: List["Node"] = []
        self._lock = threading.Lock()

    def add_node(self, node: "Node") -> bool:
        """Adds ``node``; False if it is here already. A node is in one
        executor at a time (``ValueError`` otherwise)."""
        with self._lock:
            if node in self._nodes:
                return False
            self._inner.add_node(node._inner)
            self._nodes.append(node)
            return True

    def remove_node(self, node: "Node") -> None:
        with self._lock:
            if node in self._nodes:
                self._inner.remove_node(node._inner)
                self._nodes.remove(node)

    def get_nodes(self) -> List["Node"]:
        return list(self._nodes)

    def _running(self) -> bool:
        if self._inner.is_shutdown():
            return False
        return all(n.context.ok() for n in self._nodes)

    def spin(self) -> None:
        """Runs callbacks until the context is shut down or ``shutdown()``."""
        while self._running():
            self._inner.spin(None)

    def spin_once(self, timeout_sec: Optional[float] = None) -> None:
        """Runs at most one callback, waiting up to ``timeout_sec`` for one."""
        self._inner.spin_once(timeout_sec)

    def spin_until_future_complete(self, future: Future, timeout_sec: Optional[float] = None) -> None:
        """Runs callbacks until ``future`` is done, or ``timeout_sec``."""
        if future.done():
            return
        inner = self._inner
        future.add_done_callback(lambda _: inner.wake())
        deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
        while not future.done() and self._running():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            inner.spin_once(left)

    def wake(self) -> None:
        """Makes the current (or next) spin call return."""
        self._inner.wake()

    def shutdown(self, timeout_sec: Optional[float] = None) -> bool:
        """Stops spinning for good (spin calls in other threads return)."""
        self._inner.shutdown()
        return True

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


class SingleThreadedExecutor(Executor):
    """Runs callbacks one at a time on the spinning thread."""

    def __init__(self, *, context: Any = None) -> None:
        super().__init__(threads=None)


class MultiThreadedExecutor(Executor):
    """Runs callbacks on ``num_threads`` threads (default: the CPU count)."""

    def __init__(self, num_threads: Optional[int] = None, *, context: Any = None) -> None:
        super().__init__(threads=num_threads or os.cpu_count() or 2)


_global: Optional[Executor] = None
_global_lock = threading.Lock()


def get_global_executor() -> Executor:
    """The executor the module-level spin functions use."""
    global _global
    with _global_lock:
        if _global is None or _global._inner.is_shutdown():
            _global = SingleThreadedExecutor()
        return _global


def _reset_global_executor() -> None:
    global _global
    with _global_lock:
        if _global is not None:
            _global.shutdown()
        _global = None


class _Added:
    """Adds a node to an executor for the duration of a spin call."""

    def __init__(self, executor: Executor, node: Optional["Node"]) -> None:
        self._executor = executor
        self._node = node
        self._added = False

    def __enter__(self) -> Executor:
        if self._node is not None:
            self._added = self._executor.add_node(self._node)
        return self._executor

    def __exit__(self, *exc: Any) -> None:
        if self._added and self._node is not None:
            self._executor.remove_node(self._node)


def spin(node: Optional["Node"] = None, executor: Optional[Executor] = None) -> None:
    """Runs ``node``'s callbacks until shutdown."""
    with _Added(executor or get_global_executor(), node) as e:
        e.spin()


def spin_once(node: Optional["Node"] = None, *, executor: Optional[Executor] = None,
              timeout_sec: Optional[float] = None) -> None:
    """Runs at most one of ``node``'s callbacks."""
    with _Added(executor or get_global_executor(), node) as e:
        e.spin_once(timeout_sec)


def spin_until_future_complete(node: Optional["Node"], future: Future, executor: Optional[Executor] = None,
                               timeout_sec: Optional[float] = None) -> None:
    """Runs ``node``'s callbacks until ``future`` is done or ``timeout_sec``."""
    with _Added(executor or get_global_executor(), node) as e:
        e.spin_until_future_complete(future, timeout_sec)
