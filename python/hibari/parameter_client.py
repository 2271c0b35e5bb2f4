"""rclpy's ``AsyncParameterClient``: another node's parameters through its
six ``rcl_interfaces`` services (a hibari node's or any ROS 2 node's).

Every call sends at once and returns a ``Future`` of the service's
response; ``wait_for_services`` waits for all six. Parameters are given as
``hibari.parameter.Parameter`` (or ``rcl_interfaces/msg/Parameter``).
"""

from __future__ import annotations

import time
from typing import Any, List, Optional, Sequence, Union

from .futures import Future
from .parameter import Parameter

__all__ = ["AsyncParameterClient"]


class AsyncParameterClient:
    """The parameter client of the node ``remote_node_name`` (rclpy's)."""

    def __init__(self, node: Any, remote_node_name: str) -> None:
        from .msg.rcl_interfaces.srv import (DescribeParameters, GetParameters, GetParameterTypes,
                                             ListParameters, SetParameters,
                                             SetParametersAtomically)
        from .qos import QoSProfile

        qos = QoSProfile(depth=1000)
        base = remote_node_name.rstrip("/")
        self.remote_node_name = remote_node_name
        self._types = {
            "get_parameters": GetParameters,
            "get_parameter_types": GetParameterTypes,
            "describe_parameters": DescribeParameters,
            "list_parameters": ListParameters,
            "set_parameters": SetParameters,
            "set_parameters_atomically": SetParametersAtomically,
        }
        self._clients = {name: node.create_client(srv, f"{base}/{name}", qos_profile=qos)
                         for name, srv in self._types.items()}

    def services_are_ready(self) -> bool:
        return all(c.service_is_ready() for c in self._clients.values())

    def wait_for_services(self, timeout_sec: Optional[float] = None) -> bool:
        """Waits until all six services are available; whether they are."""
        end = None if timeout_sec is None else time.monotonic() + timeout_sec
        for client in self._clients.values():
            left = None if end is None else max(0.0, end - time.monotonic())
            if not client.wait_for_service(left):
                return False
        return True

    def _call(self, name: str, **fields: Any) -> Future:
        return self._clients[name].call_async(self._types[name].Request(**fields))

    def list_parameters(self, prefixes: Optional[List[str]] = None,
                        depth: Optional[int] = None) -> Future:
        return self._call("list_parameters", prefixes=list(prefixes or []), depth=depth or 0)

    def get_parameters(self, names: List[str]) -> Future:
        return self._call("get_parameters", names=list(names))

    def get_parameter_types(self, names: List[str]) -> Future:
        return self._call("get_parameter_types", names=list(names))

    def describe_parameters(self, names: List[str]) -> Future:
        return self._call("describe_parameters", names=list(names))

    def set_parameters(self, parameters: Sequence[Union[Parameter, Any]]) -> Future:
        return self._call("set_parameters", parameters=[_msg(p) for p in parameters])

    def set_parameters_atomically(self, parameters: Sequence[Union[Parameter, Any]]) -> Future:
        return self._call("set_parameters_atomically", parameters=[_msg(p) for p in parameters])

    def delete_parameters(self, names: List[str]) -> Future:
        """Sets each to not set: undeclares the dynamically typed ones."""
        return self.set_parameters([Parameter(n, Parameter.Type.NOT_SET) for n in names])


def _msg(p: Any) -> Any:
    return p.to_parameter_msg() if isinstance(p, Parameter) else p
