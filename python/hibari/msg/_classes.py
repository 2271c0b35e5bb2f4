"""Message, service and action classes, made at run time from definitions.

Every class is built once per process from the definition in hibari's
registry (the bundled ROS 2 packages and your own, see ``hibari.msg``):

- ``__slots__`` with one attribute per field, in definition order;
- keyword construction with the definition's defaults (``Image(height=480)``);
  an unknown keyword raises ``TypeError`` naming the fields;
- the definition's constants as class attributes (``NavSatStatus.STATUS_FIX``);
- a readable ``repr`` and field-by-field ``==``.

Field values are plain Python: ``int``/``float``/``bool``/``str``, nested
messages, lists (arrays of strings, bools and messages) and numpy arrays for
arrays of numbers. Values are checked when the message is published or
serialized (types, integer and float32 ranges, string and sequence bounds,
fixed lengths); the error names the field. ``check(msg)`` runs the same
checks without publishing.
"""

from __future__ import annotations

import keyword
import threading
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple

import numpy as np

from .. import _hibari

_DTYPES: Dict[str, Any] = {
    "bool": np.bool_,
    "byte": np.uint8,
    "char": np.uint8,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "float32": np.float32,
    "float64": np.float64,
}

_MISSING = object()
_lock = threading.RLock()
_classes: Dict[str, type] = {}


def _field_repr(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return " ".join(np.array_repr(value).split())
    return repr(value)


def _as_array(x: Any) -> Any:
    if isinstance(x, (bytes, bytearray, memoryview)):
        return np.frombuffer(x, dtype=np.uint8)
    return np.asarray(x)


def _field_eq(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(_as_array(a), _as_array(b)))
        except (TypeError, ValueError):
            return False
    return bool(a == b)


class Message:
    """Base class of every message class (see the module's documentation)."""

    __slots__ = ()
    _type: ClassVar[str] = ""
    _fields: ClassVar[Tuple[str, ...]] = ()
    _field_types: ClassVar[Dict[str, str]] = {}
    _definition: ClassVar[str] = ""

    def __repr__(self) -> str:
        package, kind, name = self._type.split("/")
        body = ", ".join(f"{f}={_field_repr(getattr(self, f, None))}" for f in self._fields)
        return f"{package}.{kind}.{name}({body})"

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return all(_field_eq(getattr(self, f), getattr(other, f)) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def get_fields_and_field_types(cls) -> Dict[str, str]:
        """``{field: type}`` as written in the definition (rclpy's method)."""
        return dict(cls._field_types)


def _label(f: Dict[str, Any]) -> str:
    base = f["nested"] or f["base"]
    if f["string_bound"] is not None:
        base = f"{base}<={f['string_bound']}"
    if f["array"] == "fixed":
        return f"{base}[{f['length']}]"
    if f["array"] == "bounded":
        return f"{base}[<={f['length']}]"
    if f["array"] == "unbounded":
        return f"{base}[]"
    return base


def _zero(base: str) -> Any:
    if base == "bool":
        return False
    if base in ("float32", "float64"):
        return 0.0
    if base in ("string", "wstring"):
        return ""
    return 0


def _default_factory(f: Dict[str, Any]) -> Tuple[Optional[Callable[[], Any]], Any]:
    """``(factory, value)``: a factory for mutable defaults, else the value."""
    base, default, array = f["base"], f["default"], f["array"]
    if array is None:
        if base == "message":
            return get_message(f["nested"]), None
        return None, _zero(base) if default is None else default
    n = f["length"] if array == "fixed" else 0
    if base == "message":
        cls = get_message(f["nested"])
        return (lambda: [cls() for _ in range(n)]), None
    if base in _DTYPES and base != "bool":
        dtype = _DTYPES[base]
        if default is None:
            return (lambda: np.zeros(n, dtype)), None
        init = list(default)
        return (lambda: np.array(init, dtype=dtype)), None
    zero = _zero(base)
    init = list(default) if default is not None else [zero] * n
    return (lambda: list(init)), None


def _make_init(type_name: str, specs: List[Tuple[str, Any, Any]]) -> Callable[..., None]:
    """``__init__`` taking each field as a keyword with its default, written
    out as Python source once per class (as ``dataclasses`` does): a
    sensor_msgs/Image is built ~2x faster than by a loop over the fields."""
    names = [s[0] for s in specs]
    if not all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_") for n in names):
        return _loop_init(type_name, specs)
    scope: Dict[str, Any] = {"_MISSING": _MISSING, "_unknown": _unknown(type_name, names)}
    params, body = [], []
    for i, (name, factory, value) in enumerate(specs):
        if factory is None:
            scope[f"_v{i}"] = value
            params.append(f"{name}=_v{i}")
            body.append(f"    _self.{name} = {name}")
        else:
            scope[f"_f{i}"] = factory
            params.append(f"{name}=_MISSING")
            body.append(f"    _self.{name} = _f{i}() if {name} is _MISSING else {name}")
    keywords = f"*, {', '.join(params)}, " if params else ""
    source = f"def __init__(_self, {keywords}**_extra):\n    if _extra:\n        _unknown(_extra)\n"
    exec(source + "\n".join(body), scope)
    init: Callable[..., None] = scope["__init__"]
    return init


def _unknown(type_name: str, names: List[str]) -> Callable[[Dict[str, Any]], None]:
    def unknown(extra: Dict[str, Any]) -> None:
        raise TypeError(
            f"{type_name} has no field {', '.join(sorted(extra))}; its fields are {', '.join(names)}"
        )

    return unknown


def _loop_init(type_name: str, specs: List[Tuple[str, Any, Any]]) -> Callable[..., None]:
    """``__init__`` for fields whose names Python cannot take as keywords
    (``from``, ``class``...): given as ``**{"from": 1}``."""
    names = [s[0] for s in specs]
    unknown = _unknown(type_name, names)

    def __init__(self: Message, **kwargs: Any) -> None:
        for name, factory, value in specs:
            given = kwargs.pop(name, _MISSING)
            if given is _MISSING:
                given = factory() if factory is not None else value
            setattr(self, name, given)
        if kwargs:
            unknown(kwargs)

    return __init__


def get_message(type_name: str) -> type:
    """The class of the message type ``type_name`` (``sensor_msgs/msg/Image``,
    ``sensor_msgs/Image``, or a service part ``std_srvs/srv/SetBool_Request``)."""
    cls = _classes.get(type_name)
    if cls is not None:
        return cls
    with _lock:
        desc = _hibari.describe(type_name)
        full = desc["type"]
        cls = _classes.get(full)
        if cls is None:
            cls = _build(desc)
            _classes[full] = cls
            _hibari.register_class(full, cls)
        _classes[type_name] = cls
        return cls


def _build(desc: Dict[str, Any]) -> type:
    full: str = desc["type"]
    package, kind, name = full.split("/")
    fields = desc["fields"]
    specs = []
    for f in fields:
        factory, value = _default_factory(f)
        specs.append((f["name"], factory, value))
    namespace: Dict[str, Any] = {
        "__slots__": tuple(f["name"] for f in fields),
        "__module__": f"hibari.msg.{package}.{kind}",
        "__qualname__": name,
        "__doc__": f"``{full}``::\n\n" + "\n".join("    " + line for line in desc["definition"].splitlines()),
        "_type": full,
        "_fields": tuple(f["name"] for f in fields),
        "_field_types": {f["name"]: _label(f) for f in fields},
        "_definition": desc["definition"],
        "__init__": _make_init(full, specs),
    }
    for cname, value in desc["constants"]:
        namespace[cname] = value
    return type(name, (Message,), namespace)


class ServiceType:
    """Base class of service classes: ``Request`` and ``Response`` classes."""

    __slots__ = ()
    _type: ClassVar[str] = ""
    Request: ClassVar[type]
    Response: ClassVar[type]


class ActionType:
    """Base class of action classes: ``Goal``, ``Result`` and ``Feedback``."""

    __slots__ = ()
    _type: ClassVar[str] = ""
    Goal: ClassVar[type]
    Result: ClassVar[type]
    Feedback: ClassVar[type]


def get_service(type_name: str) -> type:
    """The class of the service type ``pkg/srv/Name``."""
    cls = _classes.get(type_name)
    if cls is not None:
        return cls
    package, _, name = type_name.rpartition("/")
    package = package.split("/")[0]
    full = f"{package}/srv/{name}"
    with _lock:
        cls = _classes.get(full)
        if cls is None:
            cls = type(name, (ServiceType,), {
                "__slots__": (),
                "__module__": f"hibari.msg.{package}.srv",
                "_type": full,
                "Request": get_message(f"{full}_Request"),
                "Response": get_message(f"{full}_Response"),
            })
            _classes[full] = cls
        _classes[type_name] = cls
        return cls


def get_action(type_name: str) -> type:
    """The class of the action type ``pkg/action/Name`` (its messages only)."""
    package, _, name = type_name.rpartition("/")
    package = package.split("/")[0]
    full = f"{package}/action/{name}"
    with _lock:
        cls = _classes.get(full)
        if cls is None:
            cls = type(name, (ActionType,), {
                "__slots__": (),
                "__module__": f"hibari.msg.{package}.action",
                "_type": full,
                "Goal": get_message(f"{full}_Goal"),
                "Result": get_message(f"{full}_Result"),
                "Feedback": get_message(f"{full}_Feedback"),
            })
            _classes[full] = cls
        return cls
