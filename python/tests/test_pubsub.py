"""Publish/subscribe in one process with the rclpy API: callbacks with and
without sample info, executors, timers, guard conditions, exceptions out of
spin, the GIL released while waiting, shutdown from another thread."""

from __future__ import annotations

import os
import threading
import time

import pytest

import hibari
from conftest import LONG, spin_until


def test_a_subscription_gets_each_message_with_its_sample_info(node, topic) -> None:
    from hibari.msg.std_msgs import String

    got = []
    node.create_subscription(String, topic, lambda msg, info: got.append((msg.data, info)), 10)
    pub = node.create_publisher(String, topic, 10)
    assert pub.get_subscription_count() == 1 and pub.topic_name == topic
    before = time.time_ns()
    for word in ("one", "two", "three"):
        pub.publish(String(data=word))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(got) == 3)
    assert [g[0] for g in got] == ["one", "two", "three"]
    infos = [g[1] for g in got]
    assert [i.sequence for i in infos] == [1, 2, 3]
    assert len({i.publisher_id for i in infos}) == 1 and len(infos[0].publisher_id) == 16
    for i in infos:
        assert i.reception_timestamp >= i.source_timestamp >= before - 10**9
        assert i.latency_ns == i.reception_timestamp - i.source_timestamp and i.lost_before == 0


def test_module_level_spin_functions_use_the_default_context(domain: int) -> None:
    from hibari.msg.std_msgs import Int64

    hibari.init([], domain_id=domain)
    try:
        with pytest.raises(RuntimeError, match="already called"):
            hibari.init([])
        node = hibari.create_node("talker")
        got = []
        topic = f"count_{os.getpid()}"
        node.create_subscription(Int64, topic, lambda m: got.append(m.data), 10)
        node.create_publisher(Int64, topic, 10).publish(Int64(data=42))
        hibari.spin_once(node, timeout_sec=LONG)
        assert got == [42] and hibari.ok()
    finally:
        hibari.shutdown()
    assert not hibari.ok()
    with pytest.raises(RuntimeError, match="init"):
        hibari.Node("late")


def test_an_exception_in_a_callback_comes_out_of_spin(node, topic) -> None:
    from hibari.msg.std_msgs import String

    def broken(msg):
        raise KeyError(msg.data)

    node.create_subscription(String, topic, broken, 10)
    node.create_publisher(String, topic, 10).publish(String(data="boom"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    with pytest.raises(KeyError, match="boom"):
        ex.spin_once(timeout_sec=LONG)
    assert not ex.spin_once(timeout_sec=0.01), "nothing left to run, no stale error"


def test_the_gil_is_released_while_an_executor_waits(node, topic) -> None:
    from hibari.msg.std_msgs import String

    got = []
    node.create_subscription(String, topic, got.append, 10)
    pub = node.create_publisher(String, topic, 10)
    # This thread needs the GIL to publish; the main thread is asleep in spin.
    publisher = threading.Timer(0.05, lambda: pub.publish(String(data="from a thread")))
    publisher.start()
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert ex.spin_once(timeout_sec=LONG) is None
    publisher.join()
    assert [m.data for m in got] == ["from a thread"]


def test_timers_fire_on_the_executor_and_can_be_cancelled(node) -> None:
    ticks = []
    timer = node.create_timer(0.005, lambda: ticks.append(time.monotonic()))
    assert timer.timer_period_ns == 5_000_000
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(ticks) >= 3)
    timer.cancel()
    assert timer.is_canceled()
    n = len(ticks)
    ex.spin_once(timeout_sec=0.03)
    assert len(ticks) == n


def test_a_guard_condition_triggered_from_another_thread_runs_its_callback(node) -> None:
    fired = threading.Event()
    guard = node.create_guard_condition(fired.set)
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    threading.Timer(0.02, guard.trigger).start()
    assert spin_until(ex, fired.is_set)


def test_shutting_the_context_down_ends_spin_in_another_thread(context) -> None:
    node = hibari.Node("spinner", context=context)
    ex = hibari.MultiThreadedExecutor(num_threads=2)
    ex.add_node(node)
    done = threading.Event()
    thread = threading.Thread(target=lambda: (ex.spin(), done.set()))
    thread.start()
    time.sleep(0.05)
    context.shutdown()
    thread.join(LONG)
    assert done.is_set()


def test_a_multi_threaded_executor_runs_callbacks_of_several_nodes(context, topic) -> None:
    from hibari.msg.std_msgs import String

    nodes = [hibari.Node(f"n{i}", context=context) for i in range(3)]
    seen = []
    lock = threading.Lock()

    def record(msg):
        with lock:
            seen.append((threading.get_ident(), msg.data))

    for n in nodes:
        n.create_subscription(String, topic, record, 10)
    pub = nodes[0].create_publisher(String, topic, 10)
    ex = hibari.MultiThreadedExecutor(num_threads=2)
    for n in nodes:
        ex.add_node(n)
    for i in range(5):
        pub.publish(String(data=str(i)))
    assert spin_until(ex, lambda: len(seen) == 15)
    assert sorted(d for _, d in seen) == sorted([str(i) for i in range(5)] * 3)


def test_a_node_is_in_one_executor_at_a_time(node) -> None:
    a, b = hibari.SingleThreadedExecutor(), hibari.SingleThreadedExecutor()
    assert a.add_node(node) and not a.add_node(node)
    with pytest.raises(ValueError, match="another executor"):
        b.add_node(node)
    a.remove_node(node)
    assert b.add_node(node)


def test_destroying_a_subscription_stops_delivery_and_graph_queries_see_endpoints(node, topic) -> None:
    from hibari.msg.std_msgs import String

    got = []
    sub = node.create_subscription(String, topic, got.append, 10)
    pub = node.create_publisher(String, topic, 10)
    assert node.count_subscribers(topic) == 1 and node.count_publishers(topic) == 1
    assert (topic, ["std_msgs/msg/String"]) in node.get_topic_names_and_types()
    assert node.destroy_subscription(sub)
    del sub
    assert node.count_subscribers(topic) == 0
    pub.publish(String(data="x"))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    ex.spin_once(timeout_sec=0.02)
    assert got == []


def test_ctrl_c_interrupts_a_spin_that_waits_forever(domain: int) -> None:
    import signal
    import subprocess
    import sys

    script = ("import hibari\n"
              f"hibari.init([], domain_id={domain})\n"
              "node = hibari.Node('idle', context=hibari.Context([], isolated=True))\n"
              "try:\n"
              "    print('spinning', flush=True)\n"
              "    hibari.spin(node)\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted', flush=True)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "spinning"
        time.sleep(0.3)  # well inside spin, asleep in Rust with the GIL released
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=LONG)
    finally:
        proc.kill()
    assert out.strip() == "interrupted"
