"""Parameters as rclpy's ``rclpy.parameter`` spells them: ``Parameter`` with
its ``Type``, and conversion to and from the ``rcl_interfaces`` messages.

The values are Python's: ``bool``, ``int``, ``float``, ``str``, a list of
1-byte ``bytes`` (a byte array; a ``bytes`` object is accepted too), and
lists of bools, ints, floats or strings. An ``int`` is not a ``float``: a
parameter declared as a double refuses an integer, as in rclpy.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Optional

__all__ = ["Parameter", "parameter_value_to_python"]


class _Type(IntEnum):
    NOT_SET = 0
    BOOL = 1
    INTEGER = 2
    DOUBLE = 3
    STRING = 4
    BYTE_ARRAY = 5
    BOOL_ARRAY = 6
    INTEGER_ARRAY = 7
    DOUBLE_ARRAY = 8
    STRING_ARRAY = 9

    @classmethod
    def from_parameter_value(cls, value: Any) -> "_Type":
        """The type of a Python value; ``TypeError`` if it has none."""
        if value is None:
            return cls.NOT_SET
        if isinstance(value, bool):
            return cls.BOOL
        if isinstance(value, int):
            return cls.INTEGER
        if isinstance(value, float):
            return cls.DOUBLE
        if isinstance(value, str):
            return cls.STRING
        if isinstance(value, (bytes, bytearray)):
            return cls.BYTE_ARRAY
        if isinstance(value, (list, tuple)):
            if all(isinstance(v, bytes) for v in value):
                return cls.BYTE_ARRAY
            if all(isinstance(v, bool) for v in value):
                return cls.BOOL_ARRAY
            if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                return cls.INTEGER_ARRAY
            if all(isinstance(v, float) for v in value):
                return cls.DOUBLE_ARRAY
            if all(isinstance(v, str) for v in value):
                return cls.STRING_ARRAY
        raise TypeError(f"the parameter value {value!r} has no parameter type")

    def check(self, value: Any) -> bool:
        """Whether ``value`` is of this type."""
        try:
            return _Type.from_parameter_value(value) == self
        except TypeError:
            return False


# The field of rcl_interfaces/msg/ParameterValue that holds each type.
_FIELDS = {
    _Type.BOOL: "bool_value", _Type.INTEGER: "integer_value",
    _Type.DOUBLE: "double_value", _Type.STRING: "string_value",
    _Type.BYTE_ARRAY: "byte_array_value", _Type.BOOL_ARRAY: "bool_array_value",
    _Type.INTEGER_ARRAY: "integer_array_value", _Type.DOUBLE_ARRAY: "double_array_value",
    _Type.STRING_ARRAY: "string_array_value",
}


def _plain(value: Any) -> Any:
    """Numpy arrays and array.array as lists; other values as they are."""
    if hasattr(value, "tolist") and not isinstance(value, (bytes, bytearray)):
        return value.tolist()
    return value


class Parameter:
    """A name, a type and a value (rclpy's ``Parameter``)."""

    Type = _Type

    def __init__(self, name: str, type_: Optional[_Type] = None, value: Any = None) -> None:
        value = _plain(value)
        if type_ is None:
            type_ = _Type.from_parameter_value(value)
        if not isinstance(type_, _Type):
            raise TypeError("type_ must be a Parameter.Type")
        if value is not None and not type_.check(value):
            raise ValueError(f"the value {value!r} is not of type {type_.name}")
        self._name = name
        self._type = type_
        self._value = value

    @property
    def name(self) -> str:
        return self._name

    @property
    def type_(self) -> _Type:
        return self._type

    @property
    def value(self) -> Any:
        return self._value

    def get_parameter_value(self) -> Any:
        """The value as an ``rcl_interfaces/msg/ParameterValue``."""
        from .msg.rcl_interfaces.msg import ParameterValue

        msg = ParameterValue(type=int(self._type))
        field = _FIELDS.get(self._type)
        if field is not None:
            value = self._value
            if self._type == _Type.BYTE_ARRAY and isinstance(value, list):
                value = b"".join(value)
            setattr(msg, field, value)
        return msg

    def to_parameter_msg(self) -> Any:
        """The parameter as an ``rcl_interfaces/msg/Parameter``."""
        from .msg.rcl_interfaces.msg import Parameter as ParameterMsg

        return ParameterMsg(name=self._name, value=self.get_parameter_value())

    @classmethod
    def from_parameter_msg(cls, msg: Any) -> "Parameter":
        """A parameter from an ``rcl_interfaces/msg/Parameter``."""
        value = parameter_value_to_python(msg.value)
        return cls(msg.name, _Type(msg.value.type), value)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Parameter) and other.name == self.name
                and other.type_ == self.type_ and other.value == self.value)

    def __repr__(self) -> str:
        return f"Parameter({self._name!r}, {self._type.name}, {self._value!r})"


def parameter_value_to_python(msg: Any) -> Any:
    """The Python value of an ``rcl_interfaces/msg/ParameterValue``."""
    t = _Type(msg.type)
    if t == _Type.NOT_SET:
        return None
    if t == _Type.BYTE_ARRAY:
        return [bytes([b]) for b in bytes(msg.byte_array_value)]
    return _plain(getattr(msg, _FIELDS[t]))
