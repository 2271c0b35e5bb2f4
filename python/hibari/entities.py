"""Publishers, subscriptions, services and clients (made by ``Node``)."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Optional, Set, Tuple

import numpy as np

from .duration import Duration
from .futures import Future

__all__ = ["Publisher", "Subscription", "Service", "Client"]


class Publisher:
    """Publishes messages of ``msg_type`` on one topic.

    ``publish(msg)`` checks the message (TypeError/ValueError naming the
    field), encodes it in Rust and hands it to the transport; arrays given as
    numpy arrays or ``bytes`` are copied once, into the message's buffer,
    with the GIL released: into shared memory when a subscription in
    another process is matched, else into the buffer this process's
    subscriptions share. An ``Image`` whose ``data`` is an ``(h, w, 3)``
    uint8 array (an OpenCV frame) is published as is. ``loan`` /
    ``loan_image`` give a message whose array you fill in place, in the
    memory the transport carries; ``publish(loan)`` then copies nothing.
    """

    __slots__ = ("_inner", "msg_type", "qos_profile", "publish", "__weakref__")

    def __init__(self, inner: Any, msg_type: type, qos_profile: Any) -> None:
        self._inner = inner
        self.msg_type = msg_type
        self.qos_profile = qos_profile
        self.publish: Callable[[Any], None] = inner.publish

    def loan(self, message: Any, field: str, count: int, *, dtype: Any = None,
             shape: Any = None) -> Any:
        """Lends memory for ``message`` with its numeric array ``field`` left
        as a writable numpy array of ``count`` elements, over the bytes the
        transport will carry (shared memory when a subscription in another
        process is matched; then nothing is copied again).

        Fill ``loan.data`` (or ``loan.message.<field>``; its contents are
        undefined until you do), set the other fields if you like (strings
        and sequences must keep their lengths), then ``publish(loan)``. The
        publish refuses (``BufferError``) while a variable or a view still
        refers to the array: fill it with ``loan.data[:] = ...``,
        ``np.copyto(loan.data, ...)`` or ``cv2.xxx(..., dst=loan.array)``,
        or ``del`` your references first. ``dtype`` and ``shape`` give
        ``loan.array`` its form (the same memory).

        A loan pays off for large arrays (an image, a point cloud): it saves
        a copy of the array but makes Python objects of its own (the
        message, the array over the lent bytes, the loan), so for messages
        of a few KiB a plain ``publish(msg)`` is faster.
        """
        return self._inner.loan(message, field, count, dtype, shape)

    def loan_image(self, height: int, width: int, encoding: str, *, frame_id: str = "",
                   header: Any = None) -> Any:
        """A loan of a ``sensor_msgs/Image`` of ``height`` x ``width``
        pixels of ``encoding`` (``rgb8``, ``mono16``, ``8UC3``...):
        ``loan.array`` is the writable ``(height, width[, channels])`` array
        of its pixels; see ``loan``."""
        image_type, layout = _image_support()
        dtype, channels = layout(encoding)
        dtype = np.dtype(dtype)
        step = width * channels * dtype.itemsize
        image = image_type(height=height, width=width, encoding=encoding, is_bigendian=0, step=step)
        if header is not None:
            image.header = header
        elif frame_id:
            image.header.frame_id = frame_id
        shape = (height, width, channels) if channels > 1 else (height, width)
        return self._inner.loan(image, "data", height * step, dtype, shape)

    def publish_raw(self, cdr: bytes) -> None:
        """Publishes CDR bytes as they are (header included)."""
        self._inner.publish_raw(cdr)

    @property
    def topic_name(self) -> str:
        return str(self._inner.topic_name)

    @property
    def topic(self) -> str:
        return self.topic_name

    @property
    def loaned_publishes(self) -> int:
        """How many ``publish(msg)`` calls wrote straight into shared memory
        (one copy), because a subscription in another process was matched."""
        return int(self._inner.loaned_publishes)

    def get_subscription_count(self) -> int:
        return int(self._inner.get_subscription_count())

    def wait_for_subscribers(self, count: int = 1, timeout_sec: float = 5.0) -> bool:
        """Waits until ``count`` subscriptions are matched (GIL released)."""
        return bool(self._inner.wait_for_subscribers(count, timeout_sec))

    def wait_for_all_acked(self, timeout: Duration = Duration(seconds=-1)) -> bool:
        """Waits until every matched reliable subscription has acknowledged every
        message published so far, for at most ``timeout`` (negative: as long as
        it takes; rclpy's signature); returns whether they have (GIL released).
        Only subscriptions in ROS 2 processes reached over DDS acknowledge later
        than ``publish`` returns."""
        return bool(self._inner.wait_for_all_acked(timeout.nanoseconds / 1e9))


_IMAGE_SUPPORT: Optional[Tuple[Any, Callable[[str], Tuple[Any, int]]]] = None


def _image_support() -> Tuple[Any, Callable[[str], Tuple[Any, int]]]:
    """``sensor_msgs/Image`` and ``image._layout``, imported on first use (the
    message module is made on import) and kept: a function-level import runs
    the import machinery, and allocates, on every call."""
    global _IMAGE_SUPPORT
    if _IMAGE_SUPPORT is None:
        from .image import _layout
        from .msg.sensor_msgs import Image  # type: ignore[attr-defined]

        _IMAGE_SUPPORT = (Image, _layout)
    return _IMAGE_SUPPORT


class Subscription:
    """Receives messages of ``msg_type`` on one topic and calls ``callback``."""

    __slots__ = ("_inner", "msg_type", "callback", "qos_profile", "__weakref__")

    def __init__(self, inner: Any, msg_type: type, callback: Callable[..., Any], qos_profile: Any) -> None:
        self._inner = inner
        self.msg_type = msg_type
        self.callback = callback
        self.qos_profile = qos_profile

    @property
    def topic_name(self) -> str:
        return str(self._inner.topic_name)

    @property
    def topic(self) -> str:
        return self.topic_name

    def get_publisher_count(self) -> int:
        return int(self._inner.get_publisher_count())

    @property
    def undecodable_samples(self) -> int:
        """Samples skipped because their bytes were not a valid message."""
        return int(self._inner.undecodable_samples)


class Service:
    """Answers requests with ``callback(request, response) -> response``."""

    __slots__ = ("_inner", "srv_type", "callback", "__weakref__")

    def __init__(self, inner: Any, srv_type: type, callback: Callable[[Any, Any], Any]) -> None:
        self._inner = inner
        self.srv_type = srv_type
        self.callback = callback

    @property
    def srv_name(self) -> str:
        return str(self._inner.service_name)

    @property
    def failed_replies(self) -> int:
        """Requests that got no reply (the callback raised)."""
        return int(self._inner.failed_replies)


class Client:
    """Calls a service. Needs no executor: replies complete futures on the
    thread that delivers them."""

    __slots__ = ("_inner", "srv_type", "_pending", "_lock", "__weakref__")

    def __init__(self, inner: Any, srv_type: type) -> None:
        self._inner = inner
        self.srv_type = srv_type
        self._pending: Set[Future] = set()
        self._lock = threading.Lock()

    @property
    def srv_name(self) -> str:
        return str(self._inner.service_name)

    def service_is_ready(self) -> bool:
        return bool(self._inner.service_is_ready())

    def wait_for_service(self, timeout_sec: Optional[float] = None) -> bool:
        """Waits (GIL released) until a server is ready; returns whether one is."""
        return bool(self._inner.wait_for_service(timeout_sec))

    def call_async(self, request: Any) -> Future:
        """Sends ``request`` now; the future completes with the response, or
        with ``ServiceUnavailableError``/``ServiceGoneError``/``HibariError``."""
        future = Future()
        ref = weakref.ref(future)

        def done(ok: bool, value: Any) -> None:
            f = ref()
            if f is not None:
                f._finish(ok, value)

        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._forget)
        try:
            future._pending = self._inner.call_async(request, done)
        except BaseException:
            self._forget(future)
            raise
        return future

    def _forget(self, future: Future) -> None:
        with self._lock:
            self._pending.discard(future)

    def call(self, request: Any, timeout_sec: Optional[float] = None) -> Any:
        """Sends ``request`` and waits (GIL released) for the response;
        ``TimeoutError`` after ``timeout_sec``."""
        future = self.call_async(request)
        if not future.wait(timeout_sec):
            future.cancel()
            raise TimeoutError(f"no reply from {self.srv_name} within {timeout_sec} s")
        return future.result()

    def remove_pending_request(self, future: Future) -> None:
        """Forgets a request (its future is cancelled)."""
        future.cancel()
