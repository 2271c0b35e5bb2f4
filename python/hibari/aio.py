"""asyncio: ``async for msg in node.subscribe_async(Type, "topic")``.

An asynchronous subscription's messages are queued by the executor that
spins its node (on another thread, without taking the GIL) and taken by
the asyncio task, which sleeps on a file descriptor until one arrives — no
polling. Run the executor with ``spin_in_background``::

    async def main():
        node = hibari.Node("listener")
        async with hibari.aio.spin_in_background(node):
            async for msg in node.subscribe_async(String, "chatter"):
                print(msg.data)

Service calls need nothing more: ``await client.call_async(request)``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any, Optional

from .executors import Executor, SingleThreadedExecutor

if TYPE_CHECKING:
    from .node import Node

__all__ = ["AsyncSubscription", "spin_in_background"]


class AsyncSubscription:
    """Messages of one topic for asyncio; an async iterator (with
    ``with_info``, items are ``(msg, info)``)."""

    __slots__ = ("_inner", "msg_type", "_with_info", "__weakref__")

    def __init__(self, inner: Any, msg_type: type, with_info: bool) -> None:
        self._inner = inner
        self.msg_type = msg_type
        self._with_info = with_info

    def __aiter__(self) -> "AsyncSubscription":
        return self

    async def __anext__(self) -> Any:
        return await self.recv()

    def try_recv(self) -> Any:
        """The next message if one is queued, else None."""
        return self._inner.take(self._with_info)

    async def recv(self) -> Any:
        """The next message, waiting for it without blocking the loop."""
        loop = asyncio.get_running_loop()
        fd = self._inner.fileno()
        while True:
            self._inner.drain()
            item = self._inner.take(self._with_info)
            if item is not None:
                return item
            readable: "asyncio.Future[None]" = loop.create_future()

            def wake(readable: "asyncio.Future[None]" = readable) -> None:
                if not readable.done():
                    readable.set_result(None)

            loop.add_reader(fd, wake)
            try:
                # A message that came between the take and add_reader has
                # left a byte on the socket: add_reader fires at once.
                await readable
            finally:
                loop.remove_reader(fd)

    @property
    def dropped(self) -> int:
        """Messages dropped because the queue (the QoS depth) was full."""
        return int(self._inner.dropped)


class spin_in_background:
    """Spins an executor (or a new one for ``nodes``) on a thread while the
    ``with``/``async with`` block runs; an exception a callback raised is
    raised when the block ends."""

    def __init__(self, *nodes: "Node", executor: Optional[Executor] = None) -> None:
        self.executor = executor or SingleThreadedExecutor()
        for node in nodes:
            self.executor.add_node(node)
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None

    def _run(self) -> None:
        try:
            self.executor.spin()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            self._error = e

    def __enter__(self) -> Executor:
        self._thread = threading.Thread(target=self._run, name="hibari-spin", daemon=True)
        self._thread.start()
        return self.executor

    def __exit__(self, *exc: Any) -> None:
        self.executor.shutdown()
        if self._thread is not None:
            self._thread.join()
        if self._error is not None and exc[0] is None:
            raise self._error

    async def __aenter__(self) -> Executor:
        return self.__enter__()

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.__exit__, *exc)
