"""Executors: they run the callbacks of the nodes added to them.

``SingleThreadedExecutor`` runs callbacks one at a time on the thread that
spins it; ``MultiThreadedExecutor`` on a pool of threads, as callback groups
allow: a node's callbacks run one at a time in its default (mutually
exclusive) group, callbacks of a ``ReentrantCallbackGroup`` or of different
groups may overlap. Python callbacks take the GIL, so the pool helps when
callbacks wait, e.g. on I/O, sleeps or service calls. Waiting is done in Rust
with the GIL released, without polling; Ctrl-C interrupts a spin. An
exception raised by a callback stops the spin of the executor that ran it and
is raised from that spin call; other executors in the process go on.

An executor given a ``context`` stops spinning when that context is shut
down (as well as when the context of one of its nodes is).

The module functions ``spin``, ``spin_once`` and
``spin_until_future_complete`` use one process-wide executor, as rclpy does.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, List, Optional

from . import _hibari
from .futures import Future

if TYPE_CHECKING:
    from .context import Context
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
    """Base of the executors; ``threads`` None is single-threaded. Spinning
    ends when ``context`` (if given) is shut down."""

    def __init__(self, *, context: Optional["Context"] = None, threads: Optional[int] = None) -> None:
        self._context = context
        self._inner = _hibari.Executor(threads, None if context is None else context._inner)
        self._nodes: List["Node"] = []
        self._lock = threading.Lock()
        # The threads in a spin call now; shutdown() waits for them.
        self._spinning: List[int] = []
        self._idle = threading.Condition(self._lock)

    @property
    def context(self) -> Optional["Context"]:
        """The context given at creation, if any."""
        return self._context

    def _spin_call(self) -> "_SpinCall":
        return _SpinCall(self)

    def add_node(self, node: "Node") -> bool:
        """Adds ``node``; False if it is here already. A node is in one
        executor at a time (``ValueError`` otherwise)."""
        with self._lock:
            if node in self._nodes:
                return False
            self._inner.add_node(node._inner)
            self._nodes.append(node)
            node._executor = weakref.ref(self)
            return True

    def remove_node(self, node: "Node") -> None:
        with self._lock:
            if node in self._nodes:
                self._inner.remove_node(node._inner)
                self._nodes.remove(node)
                node._executor = None

    def get_nodes(self) -> List["Node"]:
        return list(self._nodes)

    def _running(self) -> bool:
        if self._inner.is_shutdown():
            return False
        if self._context is not None and not self._context.ok():
            return False
        return all(n.context.ok() for n in self._nodes)

    def spin(self) -> None:
        """Runs callbacks until a context is shut down or ``shutdown()``."""
        with self._spin_call():
            while self._running():
                self._inner.spin(None)

    def spin_once(self, timeout_sec: Optional[float] = None) -> None:
        """Runs at most one callback, waiting up to ``timeout_sec`` (None:
        without limit) for one."""
        with self._spin_call():
            self._inner.spin_once(timeout_sec)

    def spin_until_future_complete(self, future: Future, timeout_sec: Optional[float] = None) -> None:
        """Runs callbacks until ``future`` is done, or ``timeout_sec`` (None:
        without limit)."""
        if future.done():
            return
        inner = self._inner
        future.add_done_callback(lambda _: inner.wake())
        deadline = None if timeout_sec is None else time.monotonic() + timeout_sec
        with self._spin_call():
            while not future.done() and self._running():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return
                inner.spin_once(left)

    def wake(self) -> None:
        """Makes the current (or next) spin call return."""
        self._inner.wake()

    def shutdown(self, timeout_sec: Optional[float] = None) -> bool:
        """Stops spinning for good: spin calls in other threads return. Waits
        up to ``timeout_sec`` (None: without limit) for them to have returned
        (the callbacks they run finish first); returns whether they did. A
        spin call of the calling thread (shutdown from a callback) is not
        waited for."""
        self._inner.shutdown()
        me = threading.get_ident()
        with self._idle:
            return self._idle.wait_for(
                lambda: all(t == me for t in self._spinning), timeout=timeout_sec)

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


class _SpinCall:
    """Counts the calling thread as spinning ``executor`` for one spin call."""

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def __enter__(self) -> None:
        with self._executor._idle:
            self._executor._spinning.append(threading.get_ident())

    def __exit__(self, *exc: Any) -> None:
        with self._executor._idle:
            self._executor._spinning.remove(threading.get_ident())
            self._executor._idle.notify_all()


class SingleThreadedExecutor(Executor):
    """Runs callbacks one at a time on the spinning thread; stops when
    ``context`` (if given) is shut down."""

    def __init__(self, *, context: Optional["Context"] = None) -> None:
        super().__init__(context=context, threads=None)


class MultiThreadedExecutor(Executor):
    """Runs callbacks on ``num_threads`` threads (default: the CPU count);
    stops when ``context`` (if given) is shut down."""

    def __init__(self, num_threads: Optional[int] = None, *,
                 context: Optional["Context"] = None) -> None:
        super().__init__(context=context, threads=num_threads or os.cpu_count() or 2)


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
