"""Shared fixtures: an isolated context per test, unique names, a domain of
each cross-process test's own, and the Rust peer binary for cross-process
tests."""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

import pytest

import hibari

ROOT = Path(__file__).resolve().parents[2]
_counter = itertools.count()

# Every blocking wait in the tests is bounded by this.
LONG = 10.0


@pytest.fixture
def context() -> Iterator[hibari.Context]:
    """A context with a domain of its own (no other test reaches it)."""
    ctx = hibari.Context([], isolated=True)
    yield ctx
    ctx.shutdown()


@pytest.fixture
def node(context: hibari.Context) -> hibari.Node:
    return hibari.Node(f"test_node_{next(_counter)}", context=context)


# Test domains are claimed as the Rust tests claim them (crates/hibari-testkit):
# by binding the abstract Unix socket "hibari-test-domain/<id>", which the
# kernel lets one socket on the host hold at a time. The claim lasts as long as
# the socket (and ends with the process). They are ROS domains (ROS_DOMAIN_ID,
# which DDS takes in 0..=232): 0 is left to users and 200..=232 to manual runs.
FIRST_DOMAIN = 1
DOMAINS = 199
_next_domain = itertools.count()


def reserve_domain() -> tuple[int, socket.socket]:
    """A domain id no other test process holds, and the socket holding it."""
    for _ in range(DOMAINS):
        d = FIRST_DOMAIN + next(_next_domain) % DOMAINS
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(f"\0hibari-test-domain/{d}")
        except OSError:
            s.close()
            continue
        return d, s
    raise RuntimeError(f"all {DOMAINS} test domains from {FIRST_DOMAIN} are held")


@pytest.fixture
def domain(monkeypatch) -> Iterator[int]:
    """A domain of this test's own, also in ``ROS_DOMAIN_ID`` for the
    processes it starts; held until the test ends."""
    d, claim = reserve_domain()
    monkeypatch.setenv("ROS_DOMAIN_ID", str(d))
    yield d
    claim.close()


@pytest.fixture
def topic() -> str:
    """A topic name no other test uses."""
    return f"/t{os.getpid()}_{next(_counter)}"


def spin_until(executor: hibari.Executor, done: Callable[[], bool], timeout: float = LONG) -> bool:
    """Spins ``executor`` until ``done()`` or ``timeout``; returns ``done()``.

    ``done()`` is checked at least every 50 ms, not only after work: it may
    watch something outside the executor (another process's output), which
    wakes no callback.
    """
    deadline = time.monotonic() + timeout
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        executor.spin_once(timeout_sec=min(left, 0.05))
    return True


def peer_binary() -> Optional[Path]:
    """The Rust peer (python/rust/examples/peer.rs), built by scripts/python.sh."""
    candidates = [os.environ.get("HIBARI_PY_PEER")]
    target = os.environ.get("CARGO_TARGET_DIR")
    for t in ([target] if target else []) + [str(ROOT / "target")]:
        candidates.append(os.path.join(t, "release", "examples", "peer"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return Path(c)
    found = shutil.which("hibari-py-peer")
    return Path(found) if found else None
