"""Loans: a message whose array is a writable numpy array over the memory the
transport carries, filled in place and published without another copy; and
plain publishes that go straight into shared memory when another process
listens."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from typing import Any, List

import numpy as np
import pytest

import hibari
from conftest import LONG, peer_binary, spin_until
from hibari.msg.sensor_msgs import Image, LaserScan  # type: ignore[attr-defined]


def _listen(node: hibari.Node, msg_type: type, topic: str) -> "tuple[List[Any], hibari.Executor]":
    got: List[Any] = []
    node.create_subscription(msg_type, topic, got.append, 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    return got, executor


def test_a_loaned_image_is_filled_in_place_and_arrives_as_written(node, topic) -> None:
    got, executor = _listen(node, Image, topic)
    pub = node.create_publisher(Image, topic, 10)
    loan = pub.loan_image(4, 5, "rgb8", frame_id="cam")
    assert loan.array.shape == (4, 5, 3) and loan.array.dtype == np.uint8
    assert loan.data.flags.writeable and loan.message.data is loan.data
    loan.array[:] = np.arange(60, dtype=np.uint8).reshape(4, 5, 3)
    loan.message.header.stamp.sec = 7  # small fields may change until published
    assert not loan.published
    pub.publish(loan)
    assert loan.published and list(loan.message.data) == []
    assert spin_until(executor, lambda: len(got) == 1)
    m = got[0]
    assert (m.height, m.width, m.encoding, m.step, m.header.frame_id, m.header.stamp.sec) == \
        (4, 5, "rgb8", 15, "cam", 7)
    assert m.data.tobytes() == bytes(range(60))


def test_a_generic_loan_of_float32_ranges(node, topic) -> None:
    got, executor = _listen(node, LaserScan, topic)
    pub = node.create_publisher(LaserScan, topic, 10)
    loan = pub.loan(LaserScan(angle_max=3.0, intensities=[1.0, 2.0]), "ranges", 360)
    assert loan.data.dtype == np.float32 and loan.data.shape == (360,)
    np.copyto(loan.data, np.linspace(0, 1, 360, dtype=np.float32))
    pub.publish(loan)
    assert spin_until(executor, lambda: len(got) == 1)
    assert np.array_equal(got[0].ranges, np.linspace(0, 1, 360, dtype=np.float32))
    assert list(got[0].intensities) == [1.0, 2.0] and got[0].angle_max == 3.0


def test_a_16_bit_image_loan_has_its_dtype_and_shape(node, topic) -> None:
    pub = node.create_publisher(Image, topic, 10)
    loan = pub.loan_image(3, 2, "mono16")
    assert loan.array.shape == (3, 2) and loan.array.dtype == np.uint16
    assert loan.data.shape == (12,) and loan.message.step == 4


def test_publishing_a_loan_whose_array_is_still_referenced_is_refused(node, topic) -> None:
    got, executor = _listen(node, Image, topic)
    pub = node.create_publisher(Image, topic, 10)
    loan = pub.loan_image(2, 2, "mono8")
    frame = loan.array  # a view of the data: it would outlive the memory
    frame[:] = 9
    with pytest.raises(BufferError, match="still in use"):
        pub.publish(loan)
    assert loan.message.data is loan.data and not loan.published  # nothing changed
    held = loan.data
    with pytest.raises(BufferError):
        pub.publish(loan)
    del frame, held
    pub.publish(loan)
    assert spin_until(executor, lambda: len(got) == 1)
    assert got[0].data.tobytes() == b"\x09" * 4


def test_bad_loans_are_refused_clearly(node, topic) -> None:
    pub = node.create_publisher(Image, topic, 10)
    other = node.create_publisher(Image, topic + "_other", 10)
    with pytest.raises(ValueError, match="no field `pixels`"):
        pub.loan(Image(), "pixels", 4)
    with pytest.raises(ValueError, match="no field `encoding`"):
        pub.loan(Image(), "encoding", 4)
    with pytest.raises(TypeError, match="expected a sensor_msgs/msg/Image"):
        pub.loan(LaserScan(), "ranges", 4)
    loan = pub.loan_image(2, 2, "mono8", frame_id="ab")
    with pytest.raises(ValueError, match="another publisher"):
        other.publish(loan)
    loan.message.header.frame_id = "abcdefgh"  # moves the array
    with pytest.raises(ValueError, match="layout changed"):
        pub.publish(loan)
    loan.message.header.frame_id = "xy"  # same length: fine
    pub.publish(loan)
    with pytest.raises(ValueError, match="published already"):
        pub.publish(loan)
    with pytest.raises(ValueError, match="published already"):
        loan.data


def test_an_array_outlives_its_dropped_loan_safely(node, topic) -> None:
    pub = node.create_publisher(Image, topic, 10)
    array = pub.loan_image(8, 8, "rgb8").array  # the loan itself is gone
    array[:] = 3  # the memory is still the array's
    assert int(array.sum()) == 3 * 8 * 8 * 3
    del array
    loan = pub.loan_image(8, 8, "rgb8")  # the memory came back to the pool
    loan.data[:] = 1
    pub.publish(loan)


# --- between processes ------------------------------------------------------

interprocess = pytest.mark.skipif(not hibari._hibari.has_interprocess(),
                                  reason="needs the shared-memory transport in the default Context")


def _mapping(address: int) -> str:
    """The name of the mapping of this process that holds ``address``."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if lo <= address < hi:
                return parts[5].strip() if len(parts) > 5 else "(anonymous)"
    return "(unmapped)"


def _fnv1a64(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


LISTENER = """
import hashlib, sys, hibari
from hibari.msg.sensor_msgs import Image
ctx = hibari.Context([], domain_id={domain})
node = hibari.Node("py_listener", context=ctx)
got = []
node.create_subscription(Image, "{topic}", lambda m: got.append(m), 10)
ex = hibari.SingleThreadedExecutor(); ex.add_node(node)
print("ready", flush=True)
while len(got) < {count}:
    if not ex.spin_once(timeout_sec={long}) and not got:
        sys.exit("nothing heard")
for m in got:
    print("heard", m.header.frame_id, len(m.data), hashlib.sha256(m.data).hexdigest(), flush=True)
"""


def _python_listener(domain: int, topic: str, count: int) -> subprocess.Popen:
    code = textwrap.dedent(LISTENER.format(domain=domain, topic=topic, count=count, long=LONG))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@interprocess
def test_a_loaned_1080p_frame_lies_in_shared_memory_and_reaches_another_process_as_written(domain) -> None:
    topic = f"/loan_frames_{os.getpid()}"
    proc = _python_listener(domain, topic, 2)
    try:
        ctx = hibari.Context([], domain_id=domain)
        pub = hibari.Node("py_talker", context=ctx).create_publisher(Image, topic, 10)
        assert pub.wait_for_subscribers(1, LONG)
        rng = np.random.default_rng(1)
        sent = []
        for n in range(2):
            loan = pub.loan_image(1080, 1920, "bgr8", frame_id=f"loan {n}")
            # Zero copies: the array the application fills is the shared memory.
            assert "memfd:hibari" in _mapping(loan.address), _mapping(loan.address)
            assert loan.array.ctypes.data == loan.address
            loan.array[:] = rng.integers(0, 256, (1080, 1920, 3), dtype=np.uint8)
            sent.append(hashlib.sha256(loan.data).hexdigest())
            pub.publish(loan)
        out, _ = proc.communicate(timeout=LONG)
    finally:
        proc.kill()
    lines = out.split("\n")[:2]
    assert lines == [f"heard loan {n} {1080 * 1920 * 3} {sent[n]}" for n in range(2)]
    assert proc.returncode == 0


@interprocess
@pytest.mark.skipif(peer_binary() is None, reason="the Rust peer is not built: run scripts/python.sh")
def test_a_loan_reaches_a_rust_process_as_written(domain) -> None:
    topic = f"/loan_rust_{os.getpid()}"
    proc = subprocess.Popen([str(peer_binary()), "listen", topic, "1"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        ctx = hibari.Context([], domain_id=domain)
        pub = hibari.Node("py_talker", context=ctx).create_publisher(Image, topic, 10)
        assert pub.wait_for_subscribers(1, LONG)
        loan = pub.loan_image(48, 64, "rgb8", frame_id="to_rust")
        assert "memfd:hibari" in _mapping(loan.address)
        loan.data[:] = np.random.default_rng(2).integers(0, 256, 48 * 64 * 3, dtype=np.uint8)
        data = loan.data.tobytes()
        pub.publish(loan)
        out, _ = proc.communicate(timeout=LONG)
    finally:
        proc.kill()
    assert out.split("\n")[0] == f"heard to_rust {data[0]} {len(data)} {_fnv1a64(data)}"


@interprocess
def test_a_plain_publish_goes_into_shared_memory_only_when_another_process_listens(domain) -> None:
    topic = f"/plain_{os.getpid()}"
    ctx = hibari.Context([], domain_id=domain)
    node = hibari.Node("py_talker", context=ctx)
    got, executor = _listen(node, Image, topic)
    pub = node.create_publisher(Image, topic, 10)
    frame = np.arange(256 * 256 * 3, dtype=np.uint32).astype(np.uint8).reshape(256, 256, 3)
    from hibari.image import image_from_array

    # Only this process listens: one copy into the buffer its subscriptions share.
    pub.publish(image_from_array(frame, "rgb8", frame_id="local"))
    assert spin_until(executor, lambda: len(got) == 1)
    assert pub.loaned_publishes == 0
    proc = _python_listener(domain, topic, 1)
    try:
        assert pub.wait_for_subscribers(2, LONG)
        # Another process listens too: written straight into shared memory.
        pub.publish(image_from_array(frame, "rgb8", frame_id="both"))
        out, _ = proc.communicate(timeout=LONG)
    finally:
        proc.kill()
    assert pub.loaned_publishes == 1
    assert out.split("\n")[0] == f"heard both {frame.size} {hashlib.sha256(frame.tobytes()).hexdigest()}"
    assert spin_until(executor, lambda: len(got) == 2)
    assert got[1].data.tobytes() == frame.tobytes()
