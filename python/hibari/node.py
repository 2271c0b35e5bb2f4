"""Nodes and what they create: publishers, subscriptions, timers, services,
clients — rclpy's API over hibari's runtime.

A node keeps every entity it created alive until ``destroy_*`` (or
``destroy_node``), as rclpy does. Callbacks run on the executor spinning the
node. A subscription callback takes ``(msg)`` or ``(msg, info)``: ``info``
is a ``SampleInfo`` (sequence, source and reception timestamps, latency,
publisher id, messages lost just before). Numeric arrays of received
messages are read-only numpy views of the received bytes.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from typing import Any, Callable, List, Optional, Tuple

from . import _hibari
from ._node_parameters import ParameterMixin
from .clock import Clock
from .context import Context, get_default_context
from .duration import Duration
from .logging import RcutilsLogger
from .entities import Client, Publisher, Service, Subscription
from .timer import Rate
from .qos import QoSLike, as_tuple, qos_profile_services_default

__all__ = ["Node", "CallbackGroup", "MutuallyExclusiveCallbackGroup", "ReentrantCallbackGroup"]


class CallbackGroup:
    """Which callbacks may run at the same time (rclpy's ``CallbackGroup``).

    A ``MutuallyExclusiveCallbackGroup`` runs one of its callbacks at a time,
    whatever the executor; a ``ReentrantCallbackGroup`` lets a
    ``MultiThreadedExecutor`` run callbacks of different entities at once
    (one entity never overlaps itself). Python callbacks hold the GIL, so
    "at once" means while they wait: on I/O, ``time.sleep``, a service call.
    A group may hold entities of several nodes. Entities created without a
    group join their node's default group, mutually exclusive.

    Subscriptions, services, timers and guard conditions honour groups.
    Clients need no executor.
    """

    _reentrant = False

    def __init__(self) -> None:
        self._inner: Any = None
        self._lock = threading.Lock()

    def _for(self, node: "Node") -> Any:
        """The extension's group, made on first use (through any node)."""
        with self._lock:
            if self._inner is None:
                self._inner = node._inner.create_callback_group(self._reentrant)
            return self._inner

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class MutuallyExclusiveCallbackGroup(CallbackGroup):
    """Runs one of its callbacks at a time (a node's default group is one)."""


class ReentrantCallbackGroup(CallbackGroup):
    """Lets a multi-threaded executor run its callbacks in parallel."""

    _reentrant = True


def _group(group: Any, node: "Node") -> Any:
    if group is None:
        return None
    if not isinstance(group, CallbackGroup):
        raise TypeError(f"expected a callback group (hibari.ReentrantCallbackGroup, ...), got {group!r}")
    return group._for(node)


class _Destroyed:
    """What a destroyed node's handles become: any use raises ``InvalidHandle``."""

    __slots__ = ("_what",)

    def __init__(self, what: str) -> None:
        self._what = what

    def __getattr__(self, name: str) -> Any:
        from .exceptions import InvalidHandle

        raise InvalidHandle(f"{self._what} was destroyed")


def _type_name(cls: Any, what: str) -> str:
    name = getattr(cls, "_type", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"expected a {what} class from hibari.msg, got {cls!r}")
    return name


def _takes_info(callback: Callable[..., Any]) -> bool:
    """Whether ``callback`` takes a second positional argument."""
    try:
        params = inspect.signature(callback).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = 0
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            return True
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


class Node(ParameterMixin):
    """A named participant (rclpy's ``Node``); subclass it or use it as is.

    It has parameters as an rclpy node has them (``declare_parameter``,
    ``get_parameter``, ``set_parameters``, the on/pre/post-set callbacks),
    served to other processes under its name unless
    ``start_parameter_services=False``; ``parameter_overrides`` (a list of
    ``Parameter``) win over ``--ros-args -p`` and ``--params-file``.

    Its callbacks run in its default, mutually exclusive callback group
    unless given another (see ``CallbackGroup``); a callback may call
    ``Client.call`` synchronously in any group, because clients need no
    executor.
    """

    def __init__(self, node_name: str, *, context: Optional[Context] = None,
                 namespace: Optional[str] = None, start_parameter_services: bool = True,
                 parameter_overrides: Optional[List[Any]] = None,
                 allow_undeclared_parameters: bool = False,
                 automatically_declare_parameters_from_overrides: bool = False,
                 **_: Any) -> None:
        self._context = context or get_default_context()
        overrides = [(p.name, p.value) for p in parameter_overrides or []]
        self._inner = _hibari.Node(self._context._inner, node_name, namespace or "/", overrides,
                                   allow_undeclared_parameters,
                                   automatically_declare_parameters_from_overrides,
                                   start_parameter_services)
        self._init_parameters(allow_undeclared_parameters)
        self._entities: List[Any] = []
        # The executor that has the node (set by Executor.add_node).
        self._executor: Optional["weakref.ref[Any]"] = None
        self._logger = RcutilsLogger(_hibari.Logger(self._inner))
        self._clock = Clock._wrap(_hibari.Clock.of_node(self._inner))
        self._default_group = MutuallyExclusiveCallbackGroup()
        # The node's own default group, so passing it to another node's
        # entity puts that entity in this very group.
        self._default_group._inner = self._inner.default_callback_group()

    @property
    def default_callback_group(self) -> CallbackGroup:
        """The group of entities created without one (mutually exclusive)."""
        return self._default_group

    def create_callback_group(self, reentrant: bool = False) -> CallbackGroup:
        """A new group (``ReentrantCallbackGroup()`` and
        ``MutuallyExclusiveCallbackGroup()`` make them too)."""
        return ReentrantCallbackGroup() if reentrant else MutuallyExclusiveCallbackGroup()

    # --- names -------------------------------------------------------------
    @property
    def executor(self) -> Any:
        """The executor that has the node (None if none has it)."""
        return self._executor() if self._executor is not None else None

    @property
    def context(self) -> Context:
        return self._context

    def get_name(self) -> str:
        return str(self._inner.name)

    def get_namespace(self) -> str:
        return str(self._inner.namespace)

    def get_fully_qualified_name(self) -> str:
        return str(self._inner.fully_qualified_name)

    def get_logger(self) -> RcutilsLogger:
        """The node's logger (rclpy's): ROS 2's console format and ``/rosout``."""
        return self._logger

    def get_clock(self) -> Clock:
        """The node's clock (a ``ROSClock``): system time, or ``/clock`` while the node's
        ``use_sim_time`` parameter is true. Its timers and rates run on it."""
        return self._clock

    def create_rate(self, frequency: float, clock: Optional[Clock] = None) -> Rate:
        """A ``Rate`` of ``frequency`` Hz on the node's clock (or ``clock``); its ``sleep``
        needs no executor."""
        if frequency <= 0:
            raise ValueError("frequency must be > 0")
        return Rate(clock or self._clock, Duration(seconds=1.0 / frequency),
                    context=self._context)

    def resolve_topic_name(self, topic: str) -> str:
        return str(self._inner.resolve_topic_name(topic))

    # --- entities ----------------------------------------------------------
    def _keep(self, entity: Any) -> Any:
        self._entities.append(entity)
        return entity

    def create_publisher(self, msg_type: type, topic: str, qos_profile: QoSLike, *,
                         callback_group: Any = None, **_: Any) -> Publisher:
        """A publisher of ``msg_type`` on ``topic``."""
        inner = self._inner.create_publisher(_type_name(msg_type, "message"), topic, as_tuple(qos_profile))
        return self._keep(Publisher(inner, msg_type, qos_profile))

    def create_subscription(self, msg_type: type, topic: str, callback: Callable[..., Any],
                            qos_profile: QoSLike, *, callback_group: Any = None, raw: bool = False,
                            **_: Any) -> Subscription:
        """A subscription calling ``callback(msg)`` or ``callback(msg, info)``
        for each message (``raw``: ``msg`` is a read-only uint8 numpy array of
        the CDR bytes)."""
        inner = self._inner.create_subscription(
            _type_name(msg_type, "message"), topic, as_tuple(qos_profile), callback,
            _takes_info(callback), raw, self._group_of(callback_group))
        return self._keep(Subscription(inner, msg_type, callback, qos_profile))

    def subscribe_async(self, msg_type: type, topic: str, qos_profile: QoSLike = 10, *,
                        with_info: bool = False) -> "Any":
        """A subscription for asyncio: ``async for msg in node.subscribe_async(...)``.
        The node must be spun (e.g. ``hibari.aio.spin_in_background(node)``)."""
        from .aio import AsyncSubscription

        inner = self._inner.create_async_subscription(_type_name(msg_type, "message"), topic,
                                                      as_tuple(qos_profile))
        return self._keep(AsyncSubscription(inner, msg_type, with_info))

    def create_timer(self, timer_period_sec: float, callback: Callable[[], Any],
                     callback_group: Any = None, clock: Optional[Clock] = None,
                     **_: Any) -> Any:
        """A timer calling ``callback()`` every ``timer_period_sec`` seconds,
        in ``callback_group`` (default: the node's), on ``clock`` (default:
        the node's: simulated time while ``use_sim_time`` is true). A ROS
        clock is followed through its override; a system or steady clock
        gives a steady schedule."""
        inner_clock = None if clock is None else clock._inner
        return self._keep(self._inner.create_timer(float(timer_period_sec), callback,
                                                   self._group_of(callback_group), inner_clock))

    def create_guard_condition(self, callback: Callable[[], Any], callback_group: Any = None) -> Any:
        """A guard condition: ``trigger()`` it (from any thread) to have the
        executor call ``callback()`` (in ``callback_group``, default: the node's)."""
        return self._keep(self._inner.create_guard_condition(callback, self._group_of(callback_group)))

    def _group_of(self, group: Any) -> Any:
        return None if group is None else _group(group, self)

    def create_service(self, srv_type: type, srv_name: str,
                       callback: Callable[[Any, Any], Any], *,
                       qos_profile: QoSLike = qos_profile_services_default,
                       callback_group: Any = None) -> Service:
        """A server answering with ``callback(request, response) -> response``."""
        inner = self._inner.create_service(_type_name(srv_type, "service"), srv_name,
                                           as_tuple(qos_profile), callback,
                                           self._group_of(callback_group))
        return self._keep(Service(inner, srv_type, callback))

    def create_client(self, srv_type: type, srv_name: str, *,
                      qos_profile: QoSLike = qos_profile_services_default,
                      callback_group: Any = None) -> Client:
        """A client of the service ``srv_name``."""
        inner = self._inner.create_client(_type_name(srv_type, "service"), srv_name, as_tuple(qos_profile))
        return self._keep(Client(inner, srv_type))

    def _destroy(self, entity: Any) -> bool:
        try:
            self._entities.remove(entity)
        except ValueError:
            return False
        return True

    destroy_publisher = _destroy
    destroy_subscription = _destroy
    destroy_timer = _destroy
    destroy_guard_condition = _destroy
    destroy_service = _destroy
    destroy_client = _destroy

    def destroy_node(self) -> None:
        """Destroys the node, as rclpy does: its entities go, it leaves the
        executor that has it, and it leaves the graph with its parameter
        services, its ``/rosout`` publisher and its ``/clock`` reader. Using
        it afterwards raises ``InvalidHandle``; a second call does nothing."""
        if isinstance(self._inner, _Destroyed):
            return
        executor = self._executor() if self._executor is not None else None
        if executor is not None:
            executor.remove_node(self)
        gone = _Destroyed(f"the node {self.get_fully_qualified_name()}")
        self._entities.clear()
        self._inner = gone
        self._params = gone

    # --- graph -------------------------------------------------------------
    def count_publishers(self, topic_name: str) -> int:
        return int(self._inner.count_publishers(topic_name))

    def count_subscribers(self, topic_name: str) -> int:
        return int(self._inner.count_subscribers(topic_name))

    def get_topic_names_and_types(self) -> List[Tuple[str, List[str]]]:
        return list(self._inner.get_topic_names_and_types().items())

    def get_service_names_and_types(self) -> List[Tuple[str, List[str]]]:
        return list(self._inner.get_service_names_and_types().items())

    def get_node_names(self) -> List[str]:
        return list(self._inner.get_node_names())

    def wait_for_node(self, fully_qualified_name: str, timeout_sec: float) -> bool:
        return bool(self._inner.wait_for_node(fully_qualified_name, timeout_sec))

    def __repr__(self) -> str:
        return f"Node({self.get_fully_qualified_name()!r})"

