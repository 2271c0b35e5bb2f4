"""Time in Python as rclpy has it: ``Time``, ``Duration``, clocks of the three types, a
node's clock following ``/clock`` with ``use_sim_time``, timers and rates on simulated
time, jump callbacks, and sleeps that end on a change of time base or a shutdown."""

from __future__ import annotations

import threading
import time
from typing import List

import pytest

import hibari
from conftest import LONG, spin_until
from hibari.clock import Clock, ClockChange, JumpThreshold, ROSClock, TimeJump
from hibari.clock_type import ClockType
from hibari.duration import Duration
from hibari.exceptions import ROSInterruptException
from hibari.msg.rosgraph_msgs.msg import Clock as ClockMsg
from hibari.parameter import Parameter
from hibari.qos import QoSProfile, ReliabilityPolicy
from hibari.time import Time

S = 1_000_000_000


def test_times_and_durations_behave_as_rclpys() -> None:
    t = Time(seconds=1.5, clock_type=ClockType.ROS_TIME)
    assert (t.nanoseconds, t.seconds_nanoseconds()) == (3 * S // 2, (1, S // 2))
    assert t + Duration(seconds=1) == Time(nanoseconds=5 * S // 2, clock_type=ClockType.ROS_TIME)
    assert t - Time(seconds=2, clock_type=ClockType.ROS_TIME) == Duration(nanoseconds=-S // 2)
    msg = t.to_msg()
    assert (msg.sec, msg.nanosec) == (1, S // 2)
    assert Time.from_msg(msg) == t
    assert Duration.from_msg(Duration(nanoseconds=-1).to_msg()) == Duration(nanoseconds=-1)
    with pytest.raises(TypeError):
        _ = t < Time(seconds=1)  # a system time
    with pytest.raises(TypeError):
        _ = t - Time(seconds=1)
    with pytest.raises(ValueError):
        Time(seconds=-1)


def test_a_nodes_clock_is_ros_time_reading_system_time(node: hibari.Node) -> None:
    clock = node.get_clock()
    assert isinstance(clock, ROSClock) and clock.clock_type == ClockType.ROS_TIME
    assert not clock.ros_time_is_active
    assert abs(clock.now().nanoseconds - time.time_ns()) < 5 * S
    assert node.get_parameter("use_sim_time").value is False
    steady = Clock(clock_type=ClockType.STEADY_TIME)
    a = steady.now()
    assert steady.sleep_for(Duration(seconds=0.02), node.context)
    assert steady.now() - a >= Duration(seconds=0.02)


def test_jump_callbacks_hear_activation_and_jumps_until_unregistered() -> None:
    clock = ROSClock()
    heard: List[TimeJump] = []
    pre: List[int] = []
    threshold = JumpThreshold(min_forward=Duration(seconds=1), min_backward=Duration(nanoseconds=-1))
    handle = clock.create_jump_callback(threshold, pre_callback=lambda: pre.append(1),
                                        post_callback=heard.append)
    clock._set_ros_time_is_active(True)
    clock.set_ros_time_override(Time(seconds=0.5, clock_type=ClockType.ROS_TIME))  # below
    clock.set_ros_time_override(Time(seconds=3, clock_type=ClockType.ROS_TIME))  # +2.5 s
    clock.set_ros_time_override(Time(seconds=2, clock_type=ClockType.ROS_TIME))  # -1 s
    assert clock.now() == Time(seconds=2, clock_type=ClockType.ROS_TIME)
    assert [(j.clock_change, j.delta.nanoseconds) for j in heard] == [
        (ClockChange.ROS_TIME_ACTIVATED, 0),
        (ClockChange.ROS_TIME_NO_CHANGE, 5 * S // 2),
        (ClockChange.ROS_TIME_NO_CHANGE, -S),
    ]
    assert len(pre) == 3
    handle.unregister()
    clock._set_ros_time_is_active(False)
    assert len(heard) == 3
    with pytest.raises(ValueError):
        JumpThreshold(min_forward=Duration(seconds=-1), min_backward=None)


def test_a_sleep_on_sim_time_ends_false_on_deactivation_and_raises_on_another_clock(
        context: hibari.Context) -> None:
    clock = ROSClock()
    clock._set_ros_time_is_active(True)
    threading.Timer(0.05, lambda: clock._set_ros_time_is_active(False)).start()
    assert clock.sleep_until(Time(seconds=10, clock_type=ClockType.ROS_TIME), context) is False
    with pytest.raises(ValueError):
        clock.sleep_until(Time(seconds=1), context)


def _publish_until_read(publisher: hibari.Publisher, node: hibari.Node, ns: int) -> None:
    publisher.publish(ClockMsg(clock=Time(nanoseconds=ns, clock_type=ClockType.ROS_TIME).to_msg()))
    deadline = time.monotonic() + LONG
    while node.get_clock().now().nanoseconds != ns:
        assert time.monotonic() < deadline, f"the node never read /clock = {ns}"
        time.sleep(0.001)


def test_with_use_sim_time_a_node_follows_clock_and_its_timer_fires_on_sim_seconds(
        context: hibari.Context) -> None:
    node = hibari.Node("sim_node", context=context,
                       parameter_overrides=[Parameter("use_sim_time", value=True)])
    assert node.get_clock().ros_time_is_active
    assert node.get_clock().now().nanoseconds == 0
    qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
    publisher = node.create_publisher(ClockMsg, "/clock", qos)
    fired: List[int] = []
    # 100 simulated seconds: a timer on wall time would not fire during the test.
    node.create_timer(100.0, lambda: fired.append(node.get_clock().now().nanoseconds))
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    for ns, count in [(50 * S, 0), (100 * S, 1), (150 * S, 1), (200 * S, 2)]:
        _publish_until_read(publisher, node, ns)
        if count > len(fired):
            assert spin_until(executor, lambda: len(fired) == count)
        else:
            spin_until(executor, lambda: False, timeout=0.1)
        assert len(fired) == count, f"at {ns}"
    assert fired == [100 * S, 200 * S]
    r = node.set_parameters([Parameter("use_sim_time", value=False)])[0]
    assert r.successful and not node.get_clock().ros_time_is_active


def test_a_rate_on_sim_time_waits_for_clock(context: hibari.Context) -> None:
    node = hibari.Node("sim_rate", context=context,
                       parameter_overrides=[Parameter("use_sim_time", value=True)])
    qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT)
    publisher = node.create_publisher(ClockMsg, "/clock", qos)
    _publish_until_read(publisher, node, 10 * S)
    rate = node.create_rate(10.0)
    woke = threading.Event()
    errors: List[BaseException] = []

    def loop() -> None:
        try:
            rate.sleep()
            woke.set()
            rate.sleep()  # until the context shuts down
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            errors.append(e)

    t = threading.Thread(target=loop)
    t.start()
    time.sleep(0.1)
    assert not woke.is_set(), "woke while /clock stood still"
    _publish_until_read(publisher, node, 10 * S + S // 10)
    assert woke.wait(LONG)
    context.shutdown()
    t.join(LONG)
    assert not t.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], ROSInterruptException)
    with pytest.raises(ValueError):
        node.create_rate(0)


def test_a_timer_on_a_steady_clock_fires_while_simulated_time_stands_still(
        context: hibari.Context) -> None:
    node = hibari.Node("sim_steady", context=context,
                       parameter_overrides=[Parameter("use_sim_time", value=True)])
    on_sim: List[int] = []
    on_steady: List[int] = []
    node.create_timer(0.01, lambda: on_sim.append(1))
    node.create_timer(0.01, lambda: on_steady.append(1), clock=Clock(clock_type=ClockType.STEADY_TIME))
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    assert spin_until(executor, lambda: len(on_steady) >= 3)
    assert on_sim == []  # no /clock: simulated time stands at 0
