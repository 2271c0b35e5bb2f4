"""Destroying a node as rclpy does: it leaves the graph and its executor, its
parameter services go, and using it afterwards raises InvalidHandle."""

from __future__ import annotations

import gc

import pytest

import hibari
from conftest import LONG
from hibari.exceptions import InvalidHandle
from hibari.lifecycle import LifecycleNode
from hibari.msg.std_msgs import String


def test_a_destroyed_node_leaves_the_graph_and_its_executor(context: hibari.Context, topic: str) -> None:
    watcher = hibari.Node("watcher", context=context)
    doomed = hibari.Node("doomed", context=context)
    doomed.create_publisher(String, topic, 10)
    logger = doomed.get_logger()  # a logger kept by the user does not keep the node
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(doomed)
    assert doomed.executor is executor
    assert "/doomed" in watcher.get_node_names()
    assert watcher.count_publishers(topic) == 1
    assert any(n.endswith("/doomed/get_parameters") for n, _ in watcher.get_service_names_and_types())

    doomed.destroy_node()
    gc.collect()
    assert executor.get_nodes() == [] and doomed.executor is None
    assert "/doomed" not in watcher.get_node_names()
    assert watcher.count_publishers(topic) == 0
    assert not any("/doomed/" in n for n, _ in watcher.get_service_names_and_types())
    with pytest.raises(InvalidHandle, match="the node /doomed was destroyed"):
        doomed.create_publisher(String, topic, 10)
    with pytest.raises(InvalidHandle):
        doomed.get_parameter("use_sim_time")
    doomed.destroy_node()  # again: nothing
    logger.info("still usable")
    executor.spin_once(timeout_sec=0)  # the executor goes on without it


def test_a_destroyed_lifecycle_node_takes_its_services_along(context: hibari.Context) -> None:
    watcher = hibari.Node("watcher", context=context)
    managed = LifecycleNode("managed", context=context)
    assert watcher.wait_for_node("/managed", LONG)
    assert any(n == "/managed/change_state" for n, _ in watcher.get_service_names_and_types())
    managed.destroy_node()
    gc.collect()
    assert "/managed" not in watcher.get_node_names()
    assert not any(n.startswith("/managed/") for n, _ in watcher.get_service_names_and_types())
    with pytest.raises(InvalidHandle):
        managed.trigger_configure()
