"""Lifecycle (managed) nodes as rclpy has them (``rclpy.lifecycle``).

Subclass ``LifecycleNode`` (also importable as ``Node``) and override ``on_configure``,
``on_activate``, ``on_deactivate``, ``on_cleanup``, ``on_shutdown`` and ``on_error``; each
gets the state the transition started from and returns a ``TransitionCallbackReturn``.
Transitions run when ``trigger_configure()`` … ``trigger_shutdown()`` are called or when a
``~/change_state`` request arrives (``ros2 lifecycle set``, an rclpy or hibari client); the
state machine, the five ``lifecycle_msgs`` services and ``~/transition_event`` are hibari's
Rust ones, with rcl's ids and labels.

As in rclpy, the default callbacks pass the transition on to the node's managed entities:
a ``LifecyclePublisher`` publishes only after ``super().on_activate(state)`` ran, until
``super().on_deactivate(state)``. An exception in a callback counts as ``ERROR``.
"""

from __future__ import annotations

import functools
import weakref
from enum import IntEnum
from typing import Any, Dict, NamedTuple, Set

from .. import _hibari
from ..node import Node as _Node
from ..qos import QoSLike

__all__ = ["LifecycleNode", "LifecyclePublisher", "LifecycleState", "ManagedEntity", "Node",
           "Publisher", "SimpleManagedEntity", "State", "TransitionCallbackReturn"]

_LABELS: Dict[int, str] = {0: "unknown", 1: "unconfigured", 2: "inactive", 3: "active",
                           4: "finalized", 10: "configuring", 11: "cleaningup",
                           12: "shuttingdown", 13: "activating", 14: "deactivating",
                           15: "errorprocessing"}


class TransitionCallbackReturn(IntEnum):
    """What a callback says (``lifecycle_msgs/msg/Transition``'s callback numbers)."""

    SUCCESS = 97
    FAILURE = 98
    ERROR = 99

    def to_label(self) -> str:
        return {97: "transition_success", 98: "transition_failure",
                99: "transition_error"}[int(self)]


_TO_RUST = {TransitionCallbackReturn.SUCCESS: 0, TransitionCallbackReturn.FAILURE: 1,
            TransitionCallbackReturn.ERROR: 2}
_FROM_RUST = {v: k for k, v in _TO_RUST.items()}


class LifecycleState(NamedTuple):
    label: str
    state_id: int


State = LifecycleState


class ManagedEntity:
    """Something a lifecycle node passes its transitions on to."""

    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        return TransitionCallbackReturn.SUCCESS


class SimpleManagedEntity(ManagedEntity):
    """A managed entity that is enabled while active."""

    def __init__(self) -> None:
        self._enabled = False

    @property
    def is_activated(self) -> bool:
        return self._enabled

    @staticmethod
    def when_enabled(wrapped: Any = None, *, when_not_enabled: Any = None) -> Any:
        """Decorates a method to run only while the entity is activated (rclpy's)."""

        def decorator(method: Any) -> Any:
            @functools.wraps(method)
            def only_when_enabled(self: "SimpleManagedEntity", *args: Any, **kwargs: Any) -> Any:
                if not self._enabled:
                    if when_not_enabled is not None:
                        when_not_enabled()
                    return None
                return method(self, *args, **kwargs)
            return only_when_enabled

        return decorator if wrapped is None else decorator(wrapped)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._enabled = True
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self._enabled = False
        return TransitionCallbackReturn.SUCCESS


class LifecyclePublisher(SimpleManagedEntity):
    """A publisher that publishes only while activated; otherwise ``publish`` drops the
    message silently, as rclpy's does. Everything else is the wrapped ``Publisher``'s."""

    def __init__(self, publisher: Any) -> None:
        super().__init__()
        self._publisher = publisher

    def publish(self, msg: Any) -> None:
        if self._enabled:
            self._publisher.publish(msg)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._publisher, name)


Publisher = LifecyclePublisher


class LifecycleNode(_Node):
    """A managed node (rclpy's ``rclpy.lifecycle.Node``); starts ``unconfigured``."""

    def __init__(self, node_name: str, **kwargs: Any) -> None:
        kwargs.pop("enable_communication_interface", None)
        super().__init__(node_name, **kwargs)
        self._managed_entities: Set[ManagedEntity] = set()
        # The Rust state machine keeps its dispatcher; a weak one, so that the node is not
        # kept alive by its own state machine (Python's collector cannot see that cycle).
        me = weakref.ref(self)

        def dispatch(name: str, previous_id: int) -> int:
            node = me()
            return 2 if node is None else node._dispatch(name, previous_id)

        self._lifecycle: Any = _hibari.Lifecycle(self._inner, dispatch)

    def destroy_node(self) -> None:
        """Destroys the node (see ``Node.destroy_node``) and its state machine."""
        from ..node import _Destroyed

        if not isinstance(self._lifecycle, _Destroyed):
            self._lifecycle = _Destroyed(f"the lifecycle node {self.get_fully_qualified_name()}")
        super().destroy_node()

    # --- what the Rust state machine calls ---------------------------------
    def _dispatch(self, name: str, previous_id: int) -> int:
        state = LifecycleState(_LABELS.get(previous_id, "unknown"), previous_id)
        try:
            ret = getattr(self, name)(state)
        except Exception as e:  # noqa: BLE001 - rclpy turns an exception into ERROR
            self.get_logger().error(f"{name} raised: {e!r}")
            return 2
        if not isinstance(ret, TransitionCallbackReturn):
            self.get_logger().error(f"{name}() should return a TransitionCallbackReturn, "
                                    f"not {ret!r}")
            return 2
        return _TO_RUST[ret]

    def _pass_on(self, callback_name: str, state: LifecycleState) -> TransitionCallbackReturn:
        for entity in self._managed_entities:
            ret = getattr(entity, callback_name)(state)
            if ret != TransitionCallbackReturn.SUCCESS:
                return ret
        return TransitionCallbackReturn.SUCCESS

    # --- the callbacks (override them; call super() to reach managed entities) ---
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_configure", state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_cleanup", state)

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_shutdown", state)

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_activate", state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_deactivate", state)

    def on_error(self, state: LifecycleState) -> TransitionCallbackReturn:
        return self._pass_on("on_error", state)

    # --- triggering ----------------------------------------------------------
    def _trigger(self, label: str) -> TransitionCallbackReturn:
        result, _ = self._lifecycle.trigger(label)
        return _FROM_RUST[result]

    def trigger_configure(self) -> TransitionCallbackReturn:
        return self._trigger("configure")

    def trigger_cleanup(self) -> TransitionCallbackReturn:
        return self._trigger("cleanup")

    def trigger_activate(self) -> TransitionCallbackReturn:
        return self._trigger("activate")

    def trigger_deactivate(self) -> TransitionCallbackReturn:
        return self._trigger("deactivate")

    def trigger_shutdown(self) -> TransitionCallbackReturn:
        return self._trigger("shutdown")

    @property
    def current_state(self) -> LifecycleState:
        state_id, label = self._lifecycle.state
        return LifecycleState(label, state_id)

    # --- managed entities ----------------------------------------------------
    def add_managed_entity(self, entity: ManagedEntity) -> None:
        self._managed_entities.add(entity)

    def create_lifecycle_publisher(self, msg_type: type, topic: str, qos_profile: QoSLike,
                                   **kwargs: Any) -> LifecyclePublisher:
        publisher = LifecyclePublisher(self.create_publisher(msg_type, topic, qos_profile,
                                                             **kwargs))
        self.add_managed_entity(publisher)
        return publisher


Node = LifecycleNode
