"""ROS 2 actions (rclpy's ``rclpy.action``): ``ActionServer`` and
``ActionClient``, interoperable with rclpy and rclcpp over DDS and with
hibari's Rust actions over any transport::

    from hibari.action import ActionServer, ActionClient
    from hibari.msg.example_interfaces.action import Fibonacci

See ``server`` and ``client`` for how callbacks run.
"""

from .client import ActionClient, ClientGoalHandle
from .server import (
    ActionServer,
    CancelResponse,
    GoalResponse,
    ServerGoalHandle,
    default_cancel_callback,
    default_goal_callback,
    default_handle_accepted_callback,
)

__all__ = [
    "ActionClient", "ActionServer", "CancelResponse", "ClientGoalHandle", "GoalResponse",
    "ServerGoalHandle", "default_cancel_callback", "default_goal_callback",
    "default_handle_accepted_callback",
]
