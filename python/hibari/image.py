"""``sensor_msgs/Image`` ↔ numpy arrays, without copies.

``image_from_array`` makes an ``Image`` whose ``data`` *is* the array (an
OpenCV frame, say): publishing it copies the pixels once, into the message's
buffer. ``image_to_array`` gives an ``(height, width[, channels])`` view of a
received image's bytes (read-only, kept alive by the array).
"""

from __future__ import annotations

import re
from typing import Any, Optional, Tuple

import numpy as np

__all__ = ["image_from_array", "image_to_array"]

_NAMED = {
    "mono8": (np.uint8, 1), "8UC1": (np.uint8, 1),
    "rgb8": (np.uint8, 3), "bgr8": (np.uint8, 3), "8UC3": (np.uint8, 3),
    "rgba8": (np.uint8, 4), "bgra8": (np.uint8, 4), "8UC4": (np.uint8, 4),
    "mono16": (np.uint16, 1), "16UC1": (np.uint16, 1),
    "rgb16": (np.uint16, 3), "bgr16": (np.uint16, 3),
    "rgba16": (np.uint16, 4), "bgra16": (np.uint16, 4),
}
_CV = re.compile(r"^(8|16|32|64)([USF])C(\d+)$")
_DEFAULT = {(np.dtype(np.uint8), 1): "mono8", (np.dtype(np.uint8), 3): "rgb8",
            (np.dtype(np.uint8), 4): "rgba8", (np.dtype(np.uint16), 1): "mono16",
            (np.dtype(np.uint16), 3): "rgb16", (np.dtype(np.uint16), 4): "rgba16"}


def _layout(encoding: str) -> Tuple[Any, int]:
    if encoding in _NAMED:
        return _NAMED[encoding]
    m = _CV.match(encoding)
    if m is None:
        raise ValueError(f"unknown image encoding {encoding!r}")
    bits, kind, channels = int(m.group(1)), m.group(2), int(m.group(3))
    dtype = np.dtype({"U": "u", "S": "i", "F": "f"}[kind] + str(bits // 8))
    return dtype, channels


def image_from_array(array: Any, encoding: Optional[str] = None, *, frame_id: str = "",
                     header: Any = None) -> Any:
    """An ``Image`` over ``array`` (``(h, w)`` or ``(h, w, c)``), not copied."""
    from .msg.sensor_msgs import Image  # type: ignore[attr-defined]

    a = np.ascontiguousarray(array)
    if a.ndim not in (2, 3):
        raise ValueError(f"expected an (h, w) or (h, w, channels) array, got shape {a.shape}")
    channels = 1 if a.ndim == 2 else a.shape[2]
    if encoding is None:
        encoding = _DEFAULT.get((a.dtype, channels)) or f"{a.dtype.itemsize * 8}{a.dtype.kind.upper().replace('I', 'S')}C{channels}"
    image = Image(height=a.shape[0], width=a.shape[1], encoding=encoding,
                  is_bigendian=int(a.dtype.byteorder == ">"), step=a.shape[1] * channels * a.dtype.itemsize,
                  data=a if a.dtype == np.uint8 else a.reshape(-1).view(np.uint8))
    if header is not None:
        image.header = header
    else:
        image.header.frame_id = frame_id
    return image


def image_to_array(image: Any) -> np.ndarray:
    """The pixels of ``image`` as an ``(h, w[, c])`` array viewing its data."""
    dtype, channels = _layout(image.encoding)
    dtype = np.dtype(dtype).newbyteorder(">" if image.is_bigendian else "<")
    data = np.asarray(image.data)
    rows = data[: image.height * image.step].reshape(image.height, image.step)
    pixels = rows[:, : image.width * channels * dtype.itemsize].view(dtype)
    return pixels.reshape(image.height, image.width, channels) if channels > 1 else pixels
