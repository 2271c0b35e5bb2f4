"""ROS 2 message, service and action types, importable by package.

Every package hibari knows — the bundled ROS 2 packages of ``HIBARI_DISTRO``
(``jazzy``, the default, or ``humble``) and your own under
``HIBARI_INTERFACE_PATH`` (or added with ``add_interface_path``) — is a
module here::

    from hibari.msg.sensor_msgs import Image, LaserScan
    from hibari.msg.std_srvs import SetBool          # .Request, .Response
    from hibari.msg.sensor_msgs.msg import Image     # rclpy's spelling works too
    from hibari.msg.std_srvs.srv import SetBool

Classes are made on first use from the definitions (see ``_classes``).
``serialize``/``deserialize`` convert to and from CDR bytes; ``check`` runs
the checks a publish runs.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, Dict, List, Optional

from .. import _hibari
from ._classes import ActionType, Message, ServiceType, get_action, get_message, get_service

__all__ = [
    "Message",
    "ServiceType",
    "ActionType",
    "get_message",
    "get_service",
    "get_action",
    "get_interface",
    "add_interface_path",
    "serialize",
    "deserialize",
    "check",
    "packages",
]

_KINDS = ("msg", "srv", "action")


def packages() -> List[str]:
    """Every interface package known."""
    return list(_hibari.packages())


def add_interface_path(path: str) -> int:
    """Adds the packages under ``path`` (a folder of packages, or one); returns
    how many definitions were added. Call it before importing their types."""
    count = int(_hibari.add_interface_path(str(path)))
    _known_packages.clear()
    return count


def get_interface(type_name: str) -> type:
    """The class of a message, service or action by name (``pkg/kind/Name``)."""
    parts = type_name.split("/")
    if len(parts) == 3 and parts[1] == "srv" and not parts[2].endswith(("_Request", "_Response")):
        return get_service(type_name)
    if len(parts) == 3 and parts[1] == "action" and "_" not in parts[2]:
        return get_action(type_name)
    return get_message(type_name)


def _type_name(msg: Any) -> str:
    name = getattr(type(msg), "_type", None)
    if not isinstance(msg, Message) or not name:
        raise TypeError(f"expected a hibari message, got {type(msg).__name__}")
    return str(name)


def serialize(msg: Message) -> bytes:
    """The CDR bytes of ``msg`` (the ROS 2 wire form, header included)."""
    return _hibari.serialize(_type_name(msg), msg)


def deserialize(data: bytes, msg_type: type) -> Any:
    """The message of class ``msg_type`` in the CDR bytes ``data``."""
    return _hibari.deserialize(msg_type._type, bytes(data))  # type: ignore[attr-defined]


def check(msg: Message) -> None:
    """Raises ``TypeError``/``ValueError`` naming the field if ``msg`` could
    not be published (the checks a publish runs)."""
    _hibari.serialize(_type_name(msg), msg)


_known_packages: Dict[str, Dict[str, str]] = {}


def _package(name: str) -> Optional[Dict[str, str]]:
    found = _known_packages.get(name)
    if found is None:
        found = dict(_hibari.package_types(name))
        if not found:
            return None
        _known_packages[name] = found
    return found


class _InterfaceModule(types.ModuleType):
    """``hibari.msg.<package>`` (every kind) or ``hibari.msg.<package>.<kind>``."""

    def __init__(self, name: str, package: str, kind: Optional[str]) -> None:
        super().__init__(name)
        self._package = package
        self._kind = kind

    def _names(self) -> Dict[str, str]:
        names = _package(self._package) or {}
        return {n: k for n, k in names.items() if self._kind is None or k == self._kind}

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        kind = self._names().get(attr)
        if kind == "srv":
            cls = get_service(f"{self._package}/srv/{attr}")
        elif kind == "action":
            cls = get_action(f"{self._package}/action/{attr}")
        elif kind == "msg":
            cls = get_message(f"{self._package}/msg/{attr}")
        else:
            cls = self._part(attr)
        setattr(self, attr, cls)
        return cls

    def _part(self, attr: str) -> type:
        """A service or action part (``SetBool_Request``, ``Fibonacci_Goal``)."""
        for kind in (self._kind,) if self._kind else ("srv", "action"):
            if kind == "msg" or "_" not in attr:
                continue
            try:
                return get_message(f"{self._package}/{kind}/{attr}")
            except LookupError:
                continue
        raise AttributeError(f"package {self._package} has no interface {attr}")

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self._names()))


class _Loader(importlib.abc.Loader):
    def __init__(self, package: str, kind: Optional[str]) -> None:
        self._package = package
        self._kind = kind

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _InterfaceModule(spec.name, self._package, self._kind)
        if self._kind is None:
            module.__path__ = []  # a package: `.msg`, `.srv`, `.action` below it
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``hibari.msg.<package>[.<kind>]`` for every known package."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Optional[importlib.machinery.ModuleSpec]:
        parts = fullname.split(".")
        if parts[:2] != ["hibari", "msg"] or len(parts) not in (3, 4):
            return None
        kind = parts[3] if len(parts) == 4 else None
        if kind is not None and kind not in _KINDS:
            return None
        if _package(parts[2]) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(parts[2], kind), is_package=kind is None)


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.append(_Finder())
