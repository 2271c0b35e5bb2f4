"""Between processes: Python ↔ Python and Python ↔ Rust (the peer binary of
python/rust/examples/peer.rs), both directions, topics and services.

These need a transport that reaches other processes; until the runtime's
default context has one (shared memory), they are skipped, keyed on
``hibari._hibari.has_interprocess()``. The same exchanges run in one
process in the other test files.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hibari
from conftest import LONG, peer_binary, spin_until

pytestmark = pytest.mark.skipif(
    not hibari._hibari.has_interprocess(),
    reason="cross-process delivery needs the shared-memory transport in the default Context "
           "(hibari._hibari.has_interprocess() is False until the runtime wires it)",
)

needs_peer = pytest.mark.skipif(peer_binary() is None,
                                reason="the Rust peer is not built: run scripts/python.sh")


# Unique per test process: parallel runs may share a domain.
IMAGES = f"/images_{os.getpid()}"


def _image(n: int):
    from hibari.msg.sensor_msgs import Image

    img = Image(height=2, width=2, encoding="rgb8", step=6, data=np.full(12, n, dtype=np.uint8))
    img.header.frame_id = f"python {n}"
    return img


def _receive(node, count):
    from hibari.msg.sensor_msgs import Image

    got = []
    node.create_subscription(Image, IMAGES, lambda m, i: got.append((m, i)), 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    return got, executor


def test_python_to_python_between_processes(domain) -> None:
    talker = textwrap.dedent(f"""
        import numpy as np, hibari
        from hibari.msg.sensor_msgs import Image
        ctx = hibari.Context([], domain_id={domain})
        node = hibari.Node("py_talker", context=ctx)
        pub = node.create_publisher(Image, "{IMAGES}", 10)
        assert pub.wait_for_subscribers(1, {LONG})
        for n in range(1, 4):
            img = Image(height=2, width=2, encoding="rgb8", step=6, data=np.full(12, n, dtype=np.uint8))
            img.header.frame_id = f"python {{n}}"
            pub.publish(img)
    """)
    ctx = hibari.Context([], domain_id=domain)
    got, executor = _receive(hibari.Node("py_listener", context=ctx), 3)
    proc = subprocess.Popen([sys.executable, "-c", talker])
    try:
        assert spin_until(executor, lambda: len(got) == 3)
    finally:
        proc.wait(LONG)
    assert [m.header.frame_id for m, _ in got] == ["python 1", "python 2", "python 3"]
    assert [int(m.data[0]) for m, _ in got] == [1, 2, 3]
    assert not got[0][0].data.flags.writeable and [i.sequence for _, i in got] == [1, 2, 3]
    assert proc.returncode == 0


@needs_peer
def test_rust_to_python(domain) -> None:
    ctx = hibari.Context([], domain_id=domain)
    got, executor = _receive(hibari.Node("py_listener", context=ctx), 3)
    proc = subprocess.Popen([str(peer_binary()), "talk", IMAGES, "3"], stdout=subprocess.PIPE, text=True)
    try:
        assert spin_until(executor, lambda: len(got) == 3)
    finally:
        proc.wait(LONG)
    assert [m.header.frame_id for m, _ in got] == ["rust 1", "rust 2", "rust 3"]
    assert [m.data.tobytes() for m, _ in got] == [bytes([n]) * 12 for n in (1, 2, 3)]


@needs_peer
def test_python_to_rust(domain) -> None:
    from hibari.msg.sensor_msgs import Image

    proc = subprocess.Popen([str(peer_binary()), "listen", IMAGES, "3"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        ctx = hibari.Context([], domain_id=domain)
        pub = hibari.Node("py_talker", context=ctx).create_publisher(Image, IMAGES, 10)
        assert pub.wait_for_subscribers(1, LONG)
        for n in (1, 2, 3):
            pub.publish(_image(n))
        out, _ = proc.communicate(timeout=LONG)
    finally:
        proc.kill()
    heard = [" ".join(line.split()[:5]) for line in out.split("\n")[:3]]
    assert heard == ["heard python 1 1 12", "heard python 2 2 12", "heard python 3 3 12"]


@needs_peer
def test_python_client_calls_a_rust_server_and_rust_client_calls_a_python_server(domain) -> None:
    from hibari.msg.std_srvs import SetBool

    server = subprocess.Popen([str(peer_binary()), "serve", f"/rust_flip_{os.getpid()}"], stdout=subprocess.PIPE, text=True)
    try:
        ctx = hibari.Context([], domain_id=domain)
        node = hibari.Node("py", context=ctx)
        client = node.create_client(SetBool, f"/rust_flip_{os.getpid()}")
        assert client.wait_for_service(LONG)
        response = client.call(SetBool.Request(data=True), LONG)
        assert (response.success, response.message) == (False, "rust")

        node.create_service(SetBool, f"/py_flip_{os.getpid()}",
                            lambda rq, rs: (setattr(rs, "success", not rq.data), setattr(rs, "message", "python"), rs)[2])
        with hibari.aio.spin_in_background(node):
            out = subprocess.run([str(peer_binary()), "call", f"/py_flip_{os.getpid()}"], capture_output=True, text=True,
                                 timeout=LONG, env=dict(os.environ))
        assert out.stdout.strip() == "response false python", out.stderr
    finally:
        server.kill()
        server.wait(LONG)
