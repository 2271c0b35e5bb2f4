"""QoS from Python: the named profiles are the runtime's, and reliability,
history depth, durability and compatibility behave as documented."""

from __future__ import annotations

import hibari
from hibari.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy,
                        qos_profile_sensor_data, qos_profile_services_default)
from conftest import spin_until


def test_named_profiles_are_the_runtimes() -> None:
    assert qos_profile_sensor_data.reliability == ReliabilityPolicy.BEST_EFFORT
    assert qos_profile_sensor_data.depth == 5
    assert qos_profile_services_default.reliability == ReliabilityPolicy.RELIABLE
    assert QoSProfile(depth=7) == QoSProfile._from_tuple(QoSProfile(depth=7)._as_tuple())
    assert hibari.QoSPresetProfiles.SENSOR_DATA is qos_profile_sensor_data


def test_a_late_transient_local_subscription_gets_the_last_messages(node, topic) -> None:
    from hibari.msg.std_msgs import Int32

    latched = QoSProfile(depth=2, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = node.create_publisher(Int32, topic, latched)
    for i in range(5):
        pub.publish(Int32(data=i))
    got = []
    node.create_subscription(Int32, topic, lambda m: got.append(m.data), latched)
    volatile = []
    node.create_subscription(Int32, topic, lambda m: volatile.append(m.data), 10)
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(got) == 2)
    ex.spin_once(timeout_sec=0.02)
    assert got == [3, 4] and volatile == []


def test_a_best_effort_subscription_keeps_its_depth_and_counts_what_it_lost(node, topic) -> None:
    from hibari.msg.std_msgs import Int32

    got = []
    qos = QoSProfile(depth=2, reliability=ReliabilityPolicy.BEST_EFFORT)
    node.create_subscription(Int32, topic, lambda m, info: got.append((m.data, info.lost_before)), qos)
    pub = node.create_publisher(Int32, topic, qos)
    for i in range(6):
        pub.publish(Int32(data=i))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(got) == 2)
    assert got == [(4, 4), (5, 0)]


def test_a_reliable_subscription_does_not_match_a_best_effort_publisher(node, topic) -> None:
    from hibari.msg.std_msgs import Int32

    pub = node.create_publisher(Int32, topic, QoSProfile(depth=5, reliability=ReliabilityPolicy.BEST_EFFORT))
    got = []
    node.create_subscription(Int32, topic, got.append, QoSProfile(depth=5))
    assert pub.get_subscription_count() == 0
    pub.publish(Int32(data=1))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    ex.spin_once(timeout_sec=0.02)
    assert got == []


def test_keep_all_and_durations_are_accepted(node, topic) -> None:
    from hibari.msg.std_msgs import Int32

    qos = QoSProfile(history=HistoryPolicy.KEEP_ALL, deadline=0.5, lifespan=2.0, liveliness_lease_duration=None)
    got = []
    node.create_subscription(Int32, topic, got.append, qos)
    pub = node.create_publisher(Int32, topic, qos)
    for i in range(50):
        pub.publish(Int32(data=i))
    ex = hibari.SingleThreadedExecutor()
    ex.add_node(node)
    assert spin_until(ex, lambda: len(got) == 50)
