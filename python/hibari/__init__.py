"""hibari: publish/subscribe for robots, from Python — rclpy's API, ROS 2
messages, and numpy arrays that are the received bytes themselves.

::

    import hibari
    from hibari.msg.std_msgs import String

    hibari.init()
    node = hibari.Node("talker")
    pub = node.create_publisher(String, "chatter", 10)
    sub = node.create_subscription(String, "chatter", lambda msg, info: print(msg.data, info.latency), 10)
    pub.publish(String(data="hello"))
    hibari.spin_once(node, timeout_sec=1.0)
    hibari.shutdown()

The package is a thin layer over the extension module ``hibari._hibari``
(Rust): encoding, decoding, waiting and delivery happen there, with the GIL
released while waiting and copying.
"""

from ._hibari import (
    HibariError,
    Loan,
    SampleInfo,
    ServiceGoneError,
    ServiceUnavailableError,
    has_interprocess,
)
from .context import Context, get_default_context, init, ok, shutdown, try_shutdown
from .entities import Client, Publisher, Service, Subscription
from .executors import (
    Executor,
    MultiThreadedExecutor,
    SingleThreadedExecutor,
    get_global_executor,
    spin,
    spin_once,
    spin_until_future_complete,
)
from .futures import Future
from .parameter import Parameter
from .node import CallbackGroup, MutuallyExclusiveCallbackGroup, Node, ReentrantCallbackGroup
from .qos import (
    DurabilityPolicy,
    HistoryPolicy,
    LivelinessPolicy,
    QoSPresetProfiles,
    QoSProfile,
    ReliabilityPolicy,
    qos_profile_default,
    qos_profile_sensor_data,
    qos_profile_services_default,
    qos_profile_system_default,
)
from . import aio, exceptions, image, logging, msg, parameter  # noqa: F401  (msg installs the hibari.msg.<package> importer)

from . import _hibari

__version__: str = _hibari.__version__

__all__ = [
    "CallbackGroup", "Client", "Context", "DurabilityPolicy", "Executor", "Future", "HibariError", "HistoryPolicy",
    "LivelinessPolicy", "Loan", "MultiThreadedExecutor", "MutuallyExclusiveCallbackGroup", "Node",
    "Publisher", "QoSPresetProfiles", "QoSProfile", "ReentrantCallbackGroup", "ReliabilityPolicy",
    "SampleInfo", "Service", "ServiceGoneError", "ServiceUnavailableError", "SingleThreadedExecutor",
    "Subscription", "create_node", "get_default_context", "get_global_executor", "has_interprocess",
    "init", "ok", "qos_profile_default", "qos_profile_sensor_data", "qos_profile_services_default",
    "qos_profile_system_default", "shutdown", "spin", "spin_once", "spin_until_future_complete",
    "try_shutdown",
]


def create_node(node_name: str, *, context: "Context | None" = None, namespace: "str | None" = None) -> Node:
    """``Node(node_name, ...)`` (rclpy's ``create_node``)."""
    return Node(node_name, context=context, namespace=namespace)
