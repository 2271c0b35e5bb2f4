"""Bad input is refused with TypeError/ValueError naming the field, at
publish (and by ``hibari.msg.check``), and nothing is sent."""

from __future__ import annotations

import numpy as np
import pytest

import hibari
from hibari.msg import check


def refused(msg, exc, text):
    with pytest.raises(exc) as info:
        check(msg)
    assert text in str(info.value), str(info.value)


def test_integers_out_of_range_name_the_field_and_the_range() -> None:
    from hibari.msg.sensor_msgs import Image
    from hibari.msg.std_msgs import Int8, UInt64

    refused(Image(height=2**32), ValueError,
            "sensor_msgs/msg/Image.height: 4294967296 is out of range for uint32 (0 to 4294967295)")
    refused(Image(height=-1), ValueError, "Image.height: -1 is out of range for uint32")
    refused(Int8(data=128), ValueError, "std_msgs/msg/Int8.data: 128 is out of range for int8 (-128 to 127)")
    refused(UInt64(data=2**70), ValueError, "out of range for uint64")
    check(UInt64(data=2**64 - 1))


def test_the_ends_of_the_64_bit_ranges_round_trip_and_one_past_them_is_refused() -> None:
    from hibari.msg import deserialize, serialize
    from hibari.msg.std_msgs import Int64, UInt8, UInt64

    for cls, value in ((Int64, -2**63), (Int64, 2**63 - 1), (UInt64, 2**64 - 1), (UInt64, 2**63),
                       (UInt64, np.uint64(2**64 - 1)), (Int64, np.int8(-5)), (UInt8, True)):
        back = deserialize(serialize(cls(data=value)), cls)
        assert back.data == int(value) and type(back.data) is int, (cls, value)
    refused(Int64(data=-2**63 - 1), ValueError, "std_msgs/msg/Int64.data: -9223372036854775809 is out of range for int64")
    refused(Int64(data=2**63), ValueError, "9223372036854775808 is out of range for int64")
    refused(UInt64(data=2**64), ValueError, "18446744073709551616 is out of range for uint64")
    refused(UInt64(data=-2**70), ValueError, "is out of range for uint64")
    refused(UInt64(data=1.0), TypeError, "std_msgs/msg/UInt64.data: expected int (uint64), got float")


def test_wrong_types_name_the_field_and_what_was_expected() -> None:
    from hibari.msg.sensor_msgs import Image
    from hibari.msg.std_msgs import Bool, Float32, Header, String

    refused(Image(encoding=3), TypeError, "sensor_msgs/msg/Image.encoding: expected str, got int")
    refused(Image(height=1.5), TypeError, "Image.height: expected int (uint32), got float")
    refused(Bool(data=1), TypeError, "std_msgs/msg/Bool.data: expected bool, got int")
    refused(Float32(data="1"), TypeError, "std_msgs/msg/Float32.data: expected float, got str")
    img = Image()
    img.header = String()
    refused(img, TypeError, "Image.header: expected a std_msgs/msg/Header, got String")
    img.header = Header()
    img.header.stamp.sec = "now"
    refused(img, TypeError, "Image.header.stamp.sec: expected int (int32), got str")


def test_floats_too_big_for_float32_strings_with_nul_and_bounds_are_refused() -> None:
    from hibari.msg.std_msgs import Float32, String
    from hibari.msg.sensor_msgs import LaserScan

    refused(Float32(data=1e39), ValueError, "std_msgs/msg/Float32.data: 1e39 is out of range for float32")
    check(Float32(data=float("inf")))
    refused(String(data="a\0b"), ValueError, "String.data: strings cannot contain NUL")
    refused(LaserScan(ranges=[1.0, "x"]), TypeError, "LaserScan.ranges[1]: expected float, got str")


def test_fixed_arrays_need_their_length_and_bounded_ones_respect_their_bound() -> None:
    from hibari.msg.geometry_msgs import PoseWithCovariance
    from hibari.msg.builtin_interfaces import Time

    refused(PoseWithCovariance(covariance=np.zeros(35)), ValueError,
            "geometry_msgs/msg/PoseWithCovariance.covariance: expected exactly 36 elements, got 35")
    refused(PoseWithCovariance(covariance=[0.0] * 37), ValueError, "expected exactly 36 elements, got 37")
    check(PoseWithCovariance(covariance=np.zeros((6, 6))))  # any shape of 36 elements
    assert Time is not None


def test_numpy_arrays_of_another_type_are_cast_only_when_safe() -> None:
    from hibari.msg.sensor_msgs import Image, LaserScan

    check(LaserScan(ranges=np.array([1, 2], dtype=np.uint8)))  # exact in float32
    refused(LaserScan(ranges=np.zeros(3)), TypeError,
            "LaserScan.ranges: expected an array of float32 (numpy.float32), got an array of float64: "
            "convert it with .astype(numpy.float32)")
    refused(Image(data=np.zeros(4, dtype=np.int16)), TypeError, "Image.data: expected an array of uint8")
    refused(Image(data="pixels"), TypeError, "Image.data: expected an array or a list, got str")
    refused(Image(data=[1, 256]), ValueError, "Image.data[1]: 256 is out of range for uint8")


def test_a_message_of_another_type_is_refused_by_a_publisher_and_nothing_is_sent(node, topic) -> None:
    from hibari.msg.std_msgs import Int32, String

    got = []
    node.create_subscription(String, topic, got.append, 10)
    pub = node.create_publisher(String, topic, 10)
    with pytest.raises(TypeError, match="expected a std_msgs/msg/String, got Int32"):
        pub.publish(Int32(data=1))
    with pytest.raises(TypeError, match="expected a std_msgs/msg/String, got dict"):
        pub.publish({"data": "x"})
    with pytest.raises(ValueError, match="NUL"):
        pub.publish(String(data="\0"))
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    executor.spin_once(timeout_sec=0.05)
    assert got == []


def test_creating_endpoints_with_bad_names_or_types_fails_clearly(node) -> None:
    from hibari.msg.std_msgs import String

    with pytest.raises(ValueError, match="topic"):
        node.create_publisher(String, "bad name", 10)
    with pytest.raises(TypeError, match="expected a message class"):
        node.create_publisher(str, "/x", 10)
    with pytest.raises(TypeError, match="QoSProfile or a history depth"):
        node.create_publisher(String, "/x", "ten")
    with pytest.raises(ValueError, match="depth"):
        hibari.QoSProfile()
