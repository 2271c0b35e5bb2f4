"""Received numeric arrays are read-only numpy views of the received bytes:
no copy (one address for every subscription of a sample), the sample lives
as long as a view does, and writing is refused. Publishing takes numpy
arrays (an (h, w, 3) frame included) and bytes."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import hibari
from hibari.image import image_from_array, image_to_array
from conftest import spin_until


def _sample_of(array):
    """The ``SampleBuffer`` a received array views. numpy 2 keeps it together
    with the ``__array_struct__`` capsule it read (``base`` is the pair)."""
    base = array.base
    return base[0] if isinstance(base, tuple) else base


def _frame(h=48, w=64):
    return (np.arange(h * w * 3) % 251).astype(np.uint8).reshape(h, w, 3)


def test_two_subscriptions_of_one_sample_view_the_same_bytes(node, topic) -> None:
    from hibari.msg.sensor_msgs import Image

    got_a, got_b = [], []
    node.create_subscription(Image, topic, got_a.append, 10)
    node.create_subscription(Image, topic, got_b.append, 10)
    pub = node.create_publisher(Image, topic, 10)
    frame = _frame()
    pub.publish(image_from_array(frame, "rgb8"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: got_a and got_b)
    a, b = got_a[0].data, got_b[0].data
    assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    assert _sample_of(a).address == _sample_of(b).address, "one buffer, no copy per subscription"
    assert np.array_equal(image_to_array(got_a[0]), frame)
    assert _sample_of(a).sample_len > frame.size  # the view sits inside the whole sample


def test_received_arrays_refuse_writes(node, topic) -> None:
    from hibari.msg.sensor_msgs import LaserScan

    got = []
    node.create_subscription(LaserScan, topic, got.append, 10)
    node.create_publisher(LaserScan, topic, 10).publish(
        LaserScan(ranges=np.linspace(0, 1, 5000, dtype=np.float32)))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: got)
    ranges = got[0].ranges
    assert ranges.dtype == np.float32 and not ranges.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        ranges[0] = 5.0
    with pytest.raises(ValueError):
        ranges.flags.writeable = True
    copy = ranges.copy()  # an explicit copy is the user's own
    copy[0] = 5.0
    assert ranges[0] == 0.0


def test_a_view_keeps_the_sample_alive_and_the_last_one_releases_it(node, topic) -> None:
    from hibari.msg.sensor_msgs import Image

    got = []
    node.create_subscription(Image, topic, got.append, 10)
    node.create_publisher(Image, topic, 10).publish(image_from_array(_frame(), "rgb8"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: got)
    data = got.pop().data
    owner = weakref.ref(_sample_of(data))
    gc.collect()
    assert owner() is not None, "the message is gone, the array still holds the sample"
    assert np.array_equal(data.reshape(48, 64, 3), _frame())
    del data
    gc.collect()
    assert owner() is None, "the last view released the sample"


def test_publishing_copies_the_array_so_later_writes_do_not_reach_subscribers(node, topic) -> None:
    from hibari.msg.sensor_msgs import Image

    got = []
    node.create_subscription(Image, topic, got.append, 10)
    pub = node.create_publisher(Image, topic, 10)
    frame = _frame(256, 256)  # big enough to be laid in without the GIL
    pub.publish(image_from_array(frame, "rgb8"))
    frame[:] = 0
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: got)
    assert image_to_array(got[0])[10, 10, 0] == _frame(256, 256)[10, 10, 0]


def test_bytes_non_contiguous_arrays_and_opencv_style_frames_are_accepted(node, topic) -> None:
    from hibari.msg.sensor_msgs import Image, PointCloud2

    got = []
    node.create_subscription(Image, topic, got.append, 10)
    pub = node.create_publisher(Image, topic, 10)
    frame = _frame(8, 8)
    pub.publish(Image(height=8, width=8, encoding="bgr8", step=24, data=frame))  # (h, w, 3) as is
    pub.publish(Image(height=8, width=4, encoding="bgr8", step=12,
                      data=frame[:, ::2]))  # a strided slice: made contiguous
    pub.publish(Image(height=1, width=4, encoding="mono8", step=4, data=b"\x01\x02\x03\x04"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(got) == 3)
    assert np.array_equal(image_to_array(got[0]), frame)
    assert np.array_equal(image_to_array(got[1]), frame[:, ::2])
    assert got[2].data.tobytes() == b"\x01\x02\x03\x04"
    assert PointCloud2 is not None


def test_image_helpers_infer_the_encoding_and_view_without_copying() -> None:
    from hibari.msg import deserialize, serialize
    from hibari.msg.sensor_msgs import Image

    depth = np.arange(12, dtype=np.uint16).reshape(3, 4)
    img = image_from_array(depth, frame_id="depth")
    assert (img.encoding, img.step, img.header.frame_id) == ("mono16", 8, "depth")
    back = deserialize(serialize(img), Image)
    view = image_to_array(back)
    assert view.shape == (3, 4) and np.array_equal(view, depth) and not view.flags.writeable
    assert np.shares_memory(view, back.data)
    assert image_from_array(np.zeros((2, 2, 3), np.float32)).encoding == "32FC3"


def test_a_raw_subscription_gets_the_cdr_bytes_as_a_read_only_array(node, topic) -> None:
    from hibari.msg.std_msgs import String
    from hibari.msg import serialize

    got = []
    node.create_subscription(String, topic, got.append, 10, raw=True)
    node.create_publisher(String, topic, 10).publish(String(data="hi"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: got)
    assert got[0].dtype == np.uint8 and not got[0].flags.writeable
    assert got[0].tobytes() == serialize(String(data="hi"))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64, np.float32, np.float64])
def test_received_arrays_of_every_element_type_are_read_only_views_of_the_sample(dtype) -> None:
    from hibari.msg import deserialize, serialize
    from hibari.msg.std_msgs import (Float32MultiArray, Float64MultiArray, Int8MultiArray,
                                     Int16MultiArray, Int32MultiArray, Int64MultiArray,
                                     UInt8MultiArray, UInt16MultiArray, UInt32MultiArray,
                                     UInt64MultiArray)

    cls = {np.int8: Int8MultiArray, np.uint8: UInt8MultiArray, np.int16: Int16MultiArray,
           np.uint16: UInt16MultiArray, np.int32: Int32MultiArray, np.uint32: UInt32MultiArray,
           np.int64: Int64MultiArray, np.uint64: UInt64MultiArray, np.float32: Float32MultiArray,
           np.float64: Float64MultiArray}[dtype]
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
    sent = np.array([info.min, 0, 1, info.max], dtype=dtype)
    back = deserialize(serialize(cls(data=sent)), cls).data
    assert back.dtype == np.dtype(dtype) and back.shape == (4,) and np.array_equal(back, sent)
    assert not back.flags.writeable and back.flags.c_contiguous
    sample = _sample_of(back)
    # CDR aligns from the end of its 4-byte header: in memory, wide elements may not be.
    assert back.flags.aligned == (sample.address % back.itemsize == 0)
    assert back.ctypes.data == sample.address == sample.__array_interface__["data"][0]
    assert back.dtype.str == sample.__array_interface__["typestr"]
    empty = deserialize(serialize(cls()), cls).data
    assert empty.dtype == np.dtype(dtype) and empty.shape == (0,)
