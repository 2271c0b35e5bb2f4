"""What belongs to one executor stays with it: the exceptions its callbacks
raise, what its ``spin_once`` counts, its nodes (even two of one name), its
context; and ``shutdown(timeout_sec)`` waits for spin calls to return."""

from __future__ import annotations

import threading
import time
from typing import List

import pytest

import hibari

from conftest import LONG


class Boom(Exception):
    pass


def _in_thread(target) -> threading.Thread:
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t


def test_a_callback_exception_is_raised_by_its_own_executor_only(context) -> None:
    # ex1 holds its callback's exception while another of its callbacks still
    # runs (a multi-threaded spin returns when all its threads have); ex2
    # meanwhile spins a node of its own and must not see the exception.
    a, b = hibari.Node("a", context=context), hibari.Node("b", context=context)
    group = hibari.ReentrantCallbackGroup()
    raised, release = threading.Event(), threading.Event()

    def fail() -> None:
        raised.set()
        raise Boom("from ex1")

    holding = a.create_guard_condition(lambda: release.wait(LONG), group)
    failing = a.create_guard_condition(fail, group)
    ran: List[int] = []
    quiet = b.create_guard_condition(lambda: ran.append(1))
    ex1, ex2 = hibari.MultiThreadedExecutor(2), hibari.SingleThreadedExecutor()
    ex1.add_node(a)
    ex2.add_node(b)
    got: List[BaseException] = []

    def spin_ex1() -> None:
        try:
            ex1.spin_once(timeout_sec=LONG)
            ex1.spin_once(timeout_sec=LONG)
        except Boom as e:
            got.append(e)

    holding.trigger()
    spinner = _in_thread(spin_ex1)
    try:
        failing.trigger()
        assert raised.wait(LONG)
        time.sleep(0.2)  # the exception is stored by now (not a timing claim)
        quiet.trigger()
        ex2.spin_once(timeout_sec=LONG)  # must not raise ex1's Boom
        assert ran == [1]
    finally:
        release.set()
        spinner.join(LONG)
        ex1.shutdown(LONG)
    assert [str(e) for e in got] == ["from ex1"]


def test_spin_once_of_a_multi_threaded_executor_counts_only_its_own_callbacks(context) -> None:
    # ex1 runs a callback every few ms on another thread; ex2's spin_once
    # must wait for ex2's own timer, not return on ex1's callbacks.
    a, b = hibari.Node("a", context=context), hibari.Node("b", context=context)
    busy = a.create_timer(0.005, lambda: None)
    ticks: List[int] = []
    slow = b.create_timer(0.3, lambda: ticks.append(1))
    ex1, ex2 = hibari.SingleThreadedExecutor(), hibari.MultiThreadedExecutor(2)
    ex1.add_node(a)
    ex2.add_node(b)
    spinner = _in_thread(ex1.spin)
    try:
        ex2.spin_once(timeout_sec=LONG)
        assert ticks == [1], "spin_once returned before its own callback ran"
    finally:
        ex1.shutdown(LONG)
        spinner.join(LONG)
        busy.cancel()
        slow.cancel()


def test_remove_node_removes_that_node_and_not_its_namesake() -> None:
    # Two nodes named "twin" in two contexts; removing the first leaves the
    # second, so shutting the second's context down ends the spin.
    first_ctx = hibari.Context([], isolated=True)
    second_ctx = hibari.Context([], isolated=True)
    first = hibari.Node("twin", context=first_ctx)
    second = hibari.Node("twin", context=second_ctx)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(first)
    executor.add_node(second)
    executor.remove_node(first)
    assert executor.get_nodes() == [second]
    second_ctx.shutdown()
    inner = executor._inner
    spinner = _in_thread(lambda: inner.spin(None))
    spinner.join(LONG)
    stopped = not spinner.is_alive()
    executor.shutdown(LONG)
    first_ctx.shutdown()
    assert stopped, "the spin did not see the remaining node's context shut down"


def test_an_executor_stops_when_its_context_is_shut_down(context) -> None:
    own = hibari.Context([], isolated=True)
    node = hibari.Node("n", context=context)
    executor = hibari.SingleThreadedExecutor(context=own)
    executor.add_node(node)
    own.shutdown()
    inner = executor._inner
    spinner = _in_thread(lambda: inner.spin(None))
    spinner.join(LONG)
    stopped = not spinner.is_alive()
    executor.shutdown(LONG)
    assert stopped, "the spin went on after the executor's context was shut down"
    assert executor.context is own


def test_shutdown_waits_up_to_timeout_sec_for_spin_calls_to_return(node) -> None:
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(LONG)

    guard = node.create_guard_condition(hold)
    executor = hibari.SingleThreadedExecutor()
    executor.add_node(node)
    spinner = _in_thread(executor.spin)
    guard.trigger()
    assert started.wait(LONG)
    try:
        assert executor.shutdown(timeout_sec=0.05) is False, "a callback still runs"
    finally:
        release.set()
    assert executor.shutdown(timeout_sec=LONG) is True
    spinner.join(LONG)
    assert not spinner.is_alive()


def test_the_module_spin_once_honours_executor_and_timeout_sec(node) -> None:
    executor = hibari.SingleThreadedExecutor()
    ran: List[int] = []
    guard = node.create_guard_condition(lambda: ran.append(1))
    hibari.spin_once(node, executor=executor, timeout_sec=0.01)  # nothing to run
    assert ran == []
    guard.trigger()
    hibari.spin_once(node, executor=executor, timeout_sec=LONG)
    assert ran == [1]
    assert executor.get_nodes() == [], "the node was added for the call only"


@pytest.mark.parametrize("threads", [None, 2])
def test_an_exception_stops_the_spin_and_comes_out_of_it(node, threads) -> None:
    guard = node.create_guard_condition(lambda: (_ for _ in ()).throw(Boom("here")))
    executor = hibari.Executor(threads=threads)
    executor.add_node(node)
    guard.trigger()
    with pytest.raises(Boom, match="here"):
        executor.spin_once(timeout_sec=LONG)
    executor.shutdown(LONG)
