"""Callback groups on real threads, and the GIL: released around every wait,
held by callbacks only while they run."""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, List

import pytest

import hibari
from conftest import LONG


class Overlap:
    """Counts how many of the watched callbacks run at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.most = 0
        self.runs = 0

    def run(self, body: Callable[[], Any]) -> None:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        try:
            body()
        finally:
            with self.lock:
                self.active -= 1
                self.runs += 1


def _spinning(executor: hibari.Executor) -> threading.Thread:
    t = threading.Thread(target=executor.spin, daemon=True)
    t.start()
    return t


def _meet(group: Any, node: hibari.Node, make: str) -> List[bool]:
    """Two entities of ``group`` whose callbacks each wait for the other at a
    barrier: both get through only if they run at the same time."""
    barrier = threading.Barrier(2, timeout=LONG)
    met: List[bool] = []

    def callback() -> None:
        try:
            barrier.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)

    if make == "guard":
        guards = [node.create_guard_condition(callback, group) for _ in range(2)]
        for g in guards:
            g.trigger()
    else:
        timers: List[Any] = []

        def once(i: int) -> None:
            timers[i].cancel()  # fires once
            callback()

        timers += [node.create_timer(0.01, lambda i=i: once(i), callback_group=group) for i in range(2)]
    return met


@pytest.mark.parametrize("make", ["guard", "timer"])
def test_reentrant_callbacks_run_at_the_same_time(node, make) -> None:
    met = _meet(hibari.ReentrantCallbackGroup(), node, make)
    executor = hibari.MultiThreadedExecutor(2)
    executor.add_node(node)
    spinner = _spinning(executor)
    try:
        deadline = time.monotonic() + LONG
        while len(met) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert met == [True, True]


def test_callbacks_of_two_exclusive_groups_run_at_the_same_time(node) -> None:
    barrier = threading.Barrier(2, timeout=LONG)
    met: List[bool] = []
    groups = [hibari.MutuallyExclusiveCallbackGroup(), hibari.MutuallyExclusiveCallbackGroup()]
    guards = [node.create_guard_condition(lambda: met.append(barrier.wait() >= 0), g) for g in groups]
    executor = hibari.MultiThreadedExecutor(2)
    executor.add_node(node)
    spinner = _spinning(executor)
    try:
        for g in guards:
            g.trigger()
        deadline = time.monotonic() + LONG
        while len(met) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert met == [True, True]


@pytest.mark.parametrize("group", ["default", "exclusive"])
def test_exclusive_callbacks_never_overlap_on_many_threads(context, group) -> None:
    # Two nodes share one exclusive group (a group may span nodes), or one
    # node's default group holds everything.
    nodes = [hibari.Node(f"ex{i}", context=context) for i in range(2)]
    shared = hibari.MutuallyExclusiveCallbackGroup() if group == "exclusive" else None
    if shared is None:
        nodes = nodes[:1]
    watch = Overlap()
    guards = []
    for i in range(4):
        node = nodes[i % len(nodes)]
        guards.append(node.create_guard_condition(lambda: watch.run(lambda: time.sleep(0.01)), shared))
    executor = hibari.MultiThreadedExecutor(4)
    for n in nodes:
        executor.add_node(n)
    spinner = _spinning(executor)
    try:
        for round in range(1, 6):
            for g in guards:
                g.trigger()
            deadline = time.monotonic() + LONG
            while watch.runs < 4 * round and time.monotonic() < deadline:
                time.sleep(0.002)
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert watch.runs == 20 and watch.most == 1


def test_a_subscription_and_a_service_of_a_reentrant_group_run_at_the_same_time(node, topic) -> None:
    from hibari.msg.std_msgs import String  # type: ignore[attr-defined]
    from hibari.msg.std_srvs import Trigger  # type: ignore[attr-defined]

    group = hibari.ReentrantCallbackGroup()
    barrier = threading.Barrier(2, timeout=LONG)
    met: List[bool] = []

    def meet() -> None:
        try:
            barrier.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)

    def answer(request: Any, response: Any) -> Any:
        meet()
        return response

    node.create_subscription(String, topic, lambda m: meet(), 10, callback_group=group)
    node.create_service(Trigger, topic + "_srv", answer, callback_group=group)
    publisher = node.create_publisher(String, topic, 10)
    client = node.create_client(Trigger, topic + "_srv")
    executor = hibari.MultiThreadedExecutor(2)
    executor.add_node(node)
    spinner = _spinning(executor)
    try:
        assert client.wait_for_service(LONG)
        future = client.call_async(Trigger.Request())
        publisher.publish(String(data="x"))
        deadline = time.monotonic() + LONG
        while len(met) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert future is not None
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert met == [True, True]


def test_a_group_must_be_a_callback_group(node) -> None:
    with pytest.raises(TypeError, match="callback group"):
        node.create_timer(1.0, lambda: None, callback_group=object())


# --- the GIL ------------------------------------------------------------------

def test_spin_lets_other_python_threads_run_while_it_waits(node) -> None:
    """A spin waits with the GIL released: a Python thread computes, then
    triggers the guard condition that ends the wait."""
    woken: List[int] = []
    guard = node.create_guard_condition(lambda: woken.append(1))
    progress = [0]

    def python_work() -> None:
        while progress[0] < 200_000:  # pure Python: needs the GIL throughout
            progress[0] += 1
        guard.trigger()

    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    worker = threading.Thread(target=python_work)
    worker.start()
    assert executor.spin_once(timeout_sec=LONG) is None and woken == [1]
    worker.join(LONG)
    assert progress[0] == 200_000


def test_a_multithreaded_spin_and_blocking_waits_release_the_gil(node, topic) -> None:
    from hibari.msg.std_msgs import String  # type: ignore[attr-defined]

    pub = node.create_publisher(String, topic, 10)
    ticks = [0]
    stop = threading.Event()

    def python_work() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0)

    worker = threading.Thread(target=python_work)
    worker.start()
    try:
        # Nothing comes: each of these waits in Rust while the worker runs Python.
        before = ticks[0]
        assert not pub.wait_for_subscribers(1, 0.2)
        assert ticks[0] > before
        executor = hibari.MultiThreadedExecutor(2)
        executor.add_node(node)
        before = ticks[0]
        executor.spin_once(timeout_sec=0.2)
        assert ticks[0] > before
        before = ticks[0]
        assert not node.wait_for_node("/nobody_here", 0.2)
        assert ticks[0] > before
    finally:
        stop.set()
        worker.join(LONG)


def test_callbacks_hold_the_gil_only_while_they_run(node, topic) -> None:
    """The main thread runs Python while an executor thread waits and runs
    callbacks: both progress."""
    from hibari.msg.std_msgs import String  # type: ignore[attr-defined]

    got: List[str] = []
    node.create_subscription(String, topic, lambda m: got.append(m.data), 10)
    pub = node.create_publisher(String, topic, 10)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    spinner = _spinning(executor)
    try:
        for i in range(50):
            pub.publish(String(data=str(i)))
            total = sum(range(10_000))  # Python work on the main thread meanwhile
            assert total == 49_995_000
        deadline = time.monotonic() + LONG
        while len(got) < 50 and time.monotonic() < deadline:
            time.sleep(0.001)
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert got == [str(i) for i in range(50)]


def test_another_nodes_default_group_is_that_very_group(context) -> None:
    """An entity of node B given node A's default group is exclusive with
    A's own callbacks: two callbacks that each wait for the other at a
    barrier never meet (each waits in vain, in turn)."""
    a = hibari.Node("default_a", context=context)
    b = hibari.Node("default_b", context=context)
    barrier = threading.Barrier(2, timeout=1.0)
    met: List[bool] = []

    def callback() -> None:
        try:
            barrier.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)

    guards = [a.create_guard_condition(callback),
              b.create_guard_condition(callback, a.default_callback_group)]
    executor = hibari.MultiThreadedExecutor(2)
    executor.add_node(a)
    executor.add_node(b)
    spinner = _spinning(executor)
    try:
        for g in guards:
            g.trigger()
        deadline = time.monotonic() + LONG
        while len(met) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        executor.shutdown()
        spinner.join(LONG)
    assert met == [False, False]
