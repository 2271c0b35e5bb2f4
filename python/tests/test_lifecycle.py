"""Lifecycle nodes in Python as rclpy has them: subclass callbacks, triggers, failure and
error paths, lifecycle publishers that publish only while activated, and the services a
client drives the node through."""

from __future__ import annotations

import time
from typing import List, Tuple

import pytest

import hibari
from conftest import LONG, spin_until
from hibari.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn
from hibari.msg.lifecycle_msgs.msg import Transition
from hibari.msg.lifecycle_msgs.srv import ChangeState, GetState
from hibari.msg.std_msgs.msg import String

R = TransitionCallbackReturn


class Recorder(LifecycleNode):
    def __init__(self, name: str, context: hibari.Context) -> None:
        super().__init__(name, context=context)
        self.calls: List[Tuple[str, str]] = []
        self.script: List[Tuple[str, R]] = []

    def _step(self, name: str, state: LifecycleState) -> R:
        self.calls.append((name, state.label))
        for i, (n, r) in enumerate(self.script):
            if n == name:
                del self.script[i]
                return r
        return R.SUCCESS

    def on_configure(self, state: LifecycleState) -> R:
        return self._step("configure", state)

    def on_activate(self, state: LifecycleState) -> R:
        r = self._step("activate", state)
        return super().on_activate(state) if r == R.SUCCESS else r

    def on_deactivate(self, state: LifecycleState) -> R:
        self._step("deactivate", state)
        return super().on_deactivate(state)

    def on_error(self, state: LifecycleState) -> R:
        return self._step("error", state)


def test_transitions_run_the_callbacks_and_follow_their_results(context: hibari.Context) -> None:
    node = Recorder("lc", context)
    assert node.current_state == LifecycleState("unconfigured", 1)
    node.script = [("configure", R.FAILURE)]
    assert node.trigger_configure() == R.FAILURE
    assert node.current_state.label == "unconfigured"
    assert node.trigger_configure() == R.SUCCESS
    assert node.trigger_activate() == R.SUCCESS
    assert node.current_state == LifecycleState("active", 3)
    with pytest.raises(ValueError, match="no transition `configure` out of the state `active`"):
        node.trigger_configure()
    node.script = [("deactivate", R.SUCCESS)]
    assert node.trigger_deactivate() == R.SUCCESS
    assert node.trigger_cleanup() == R.SUCCESS
    node.script = [("configure", R.ERROR), ("error", R.FAILURE)]
    assert node.trigger_configure() == R.ERROR
    assert node.current_state.label == "finalized"
    assert node.calls == [("configure", "unconfigured"), ("configure", "unconfigured"),
                          ("activate", "inactive"), ("deactivate", "active"),
                          ("configure", "unconfigured"), ("error", "unconfigured")]


def test_an_exception_in_a_callback_is_an_error(context: hibari.Context) -> None:
    class Broken(LifecycleNode):
        def on_configure(self, state: LifecycleState) -> R:
            raise RuntimeError("no camera")

    node = Broken("broken", context=context)
    assert node.trigger_configure() == R.ERROR
    assert node.current_state.label == "unconfigured"  # on_error's default succeeded


def test_a_lifecycle_publisher_publishes_only_while_activated(context: hibari.Context) -> None:
    node = Recorder("lc_pub", context)
    pub = node.create_lifecycle_publisher(String, "lc_chatter", 10)
    heard: List[str] = []
    node.create_subscription(String, "lc_chatter", lambda m: heard.append(m.data), 10)
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    pub.publish(String(data="unconfigured"))
    node.trigger_configure()
    pub.publish(String(data="inactive"))
    node.trigger_activate()
    assert pub.is_activated
    pub.publish(String(data="active"))
    node.trigger_deactivate()
    pub.publish(String(data="inactive again"))
    assert spin_until(executor, lambda: len(heard) == 1)
    spin_until(executor, lambda: False, timeout=0.1)
    assert heard == ["active"]


def test_a_client_drives_a_python_lifecycle_node_through_its_services(
        context: hibari.Context) -> None:
    node = Recorder("managed", context)
    supervisor = hibari.Node("supervisor", context=context)
    change = supervisor.create_client(ChangeState, "/managed/change_state")
    get = supervisor.create_client(GetState, "/managed/get_state")
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(node)
    executor.add_node(supervisor)
    assert change.wait_for_service(LONG)

    def call(client: hibari.Client, request: object) -> object:
        future = client.call_async(request)
        assert spin_until(executor, future.done)
        return future.result()

    ok = call(change, ChangeState.Request(transition=Transition(id=1)))
    assert getattr(ok, "success") is True
    ok = call(change, ChangeState.Request(transition=Transition(label="activate")))
    assert getattr(ok, "success") is True
    state = getattr(call(get, GetState.Request()), "current_state")
    assert (state.id, state.label) == (3, "active")
    assert node.calls == [("configure", "unconfigured"), ("activate", "inactive")]


def test_a_dropped_lifecycle_node_is_freed_with_its_services(context: hibari.Context) -> None:
    import gc
    import weakref

    node = Recorder("dropped", context)
    supervisor = hibari.Node("watcher", context=context)
    assert supervisor.count_publishers("/dropped/transition_event") == 1
    gone = weakref.ref(node)
    del node
    gc.collect()
    assert gone() is None, "the state machine kept its node alive"
    deadline = time.monotonic() + LONG
    while supervisor.count_publishers("/dropped/transition_event") != 0:
        assert time.monotonic() < deadline, "the dropped node's endpoints stayed in the graph"
        time.sleep(0.01)
