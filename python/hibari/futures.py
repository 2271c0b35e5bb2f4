"""The result of an asynchronous call (rclpy's ``Future``), awaitable.

A service call's future is completed on the thread that delivers the reply
(hibari's clients need no executor), and its done callbacks run there. So
``client.call_async(req)`` can be awaited in asyncio, waited on with
``result(timeout)``-style blocking via ``Client.call``, or driven by an
executor with ``spin_until_future_complete`` — whichever is convenient.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, Generator, List, Optional


class Future:
    """A value (or exception) that becomes available later."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._event = threading.Event()
        self._done = False
        self._cancelled = False
        self._result: Any = None
        self._exception: Optional[BaseException] = None
        self._callbacks: List[Callable[["Future"], None]] = []
        self._pending: Any = None  # the extension's PendingCall, for cancel()

    def done(self) -> bool:
        """Whether a result, an exception or a cancellation is in."""
        return self._done

    def cancelled(self) -> bool:
        return self._cancelled

    def result(self) -> Any:
        """The result (None while not done); raises the call's exception."""
        if self._exception is not None:
            raise self._exception
        return self._result

    def exception(self) -> Optional[BaseException]:
        return self._exception

    def wait(self, timeout_sec: Optional[float] = None) -> bool:
        """Blocks (GIL released) until done or ``timeout_sec``; returns ``done()``."""
        return self._event.wait(timeout_sec)

    def set_result(self, result: Any) -> None:
        self._finish(True, result)

    def set_exception(self, exception: BaseException) -> None:
        self._finish(False, exception)

    def cancel(self) -> None:
        """Forgets the request: a late reply is dropped."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.cancel()
        with self._lock:
            if self._done:
                return
            self._cancelled = True
        self._complete()

    def add_done_callback(self, callback: Callable[["Future"], None]) -> None:
        """Calls ``callback(future)`` when done (at once if it already is)."""
        with self._lock:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def _finish(self, ok: bool, value: Any) -> None:
        with self._lock:
            if self._done:
                return
            if ok:
                self._result = value
            else:
                self._exception = value
        self._pending = None
        self._complete()

    def _complete(self) -> None:
        with self._lock:
            self._done = True
            callbacks, self._callbacks = self._callbacks, []
        self._event.set()
        for callback in callbacks:
            callback(self)

    def __await__(self) -> Generator[Any, None, Any]:
        if not self._done:
            loop = asyncio.get_running_loop()
            waiter = loop.create_future()

            def resolve() -> None:
                if not waiter.done():
                    waiter.set_result(None)

            def wake(_: "Future") -> None:
                loop.call_soon_threadsafe(resolve)

            self.add_done_callback(wake)
            yield from waiter.__await__()
        if self._cancelled:
            raise asyncio.CancelledError()
        return self.result()
