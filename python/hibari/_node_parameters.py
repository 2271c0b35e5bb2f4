"""The parameter methods of ``hibari.Node``, with rclpy's names, arguments
and exceptions (``hibari.exceptions``). The rules — types, ranges,
read-only, the order of callbacks, the services under the node's name and
``/parameter_events`` — are the Rust runtime's (``hibari::parameter``), so a
Python node and a Rust node behave alike."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import _hibari
from .exceptions import ParameterNotDeclaredException
from .parameter import Parameter, _plain, _Type

__all__ = ["ParameterMixin"]

Descriptor = Any  # hibari.msg.rcl_interfaces.msg.ParameterDescriptor


def _descriptor_tuple(d: Optional[Descriptor]) -> Tuple[Any, ...]:
    if d is None:
        return (0, "", "", False, False, [], [])
    return (int(d.type), d.description, d.additional_constraints, bool(d.read_only),
            bool(d.dynamic_typing),
            [(r.from_value, r.to_value, r.step) for r in d.floating_point_range],
            [(r.from_value, r.to_value, r.step) for r in d.integer_range])


def _descriptor_msg(name: str, t: Tuple[Any, ...]) -> Descriptor:
    from .msg.rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

    ty, description, constraints, read_only, dynamic, fp, ir = t
    return ParameterDescriptor(
        name=name, type=ty, description=description, additional_constraints=constraints,
        read_only=read_only, dynamic_typing=dynamic,
        floating_point_range=[FloatingPointRange(from_value=a, to_value=b, step=c) for a, b, c in fp],
        integer_range=[IntegerRange(from_value=a, to_value=b, step=c) for a, b, c in ir])


def _result(successful: bool, reason: str) -> Any:
    from .msg.rcl_interfaces.msg import SetParametersResult

    return SetParametersResult(successful=successful, reason=reason)


def _pairs(parameters: Sequence[Parameter]) -> List[Tuple[str, Any]]:
    for p in parameters:
        if not isinstance(p, Parameter):
            raise TypeError(f"expected hibari.parameter.Parameter, got {p!r}")
    return [(p.name, p.value) for p in parameters]


def _parameters(pairs: List[Tuple[str, Any]]) -> List[Parameter]:
    return [Parameter(name, value=value) for name, value in pairs]


class ParameterMixin:
    """Parameters of a node (mixed into ``hibari.Node``)."""

    _inner: Any
    _params: Any
    _param_callbacks: Dict[int, Any]
    _allow_undeclared: bool

    def _init_parameters(self, allow_undeclared: bool) -> None:
        self._params = _hibari.NodeParameters(self._inner)
        self._allow_undeclared = allow_undeclared
        self._param_callbacks = {}

    # --- declare -----------------------------------------------------------
    def declare_parameter(self, name: str, value: Any = None,
                          descriptor: Optional[Descriptor] = None,
                          ignore_override: bool = False) -> Parameter:
        """Declares ``name`` with a default ``value`` (or a ``Parameter.Type``
        for a typed parameter without one) and returns it with the value it
        got (an override's, if any)."""
        if value is None and descriptor is None:
            warnings.warn(f"when declaring parameter named '{name}', declaring a parameter only "
                          "providing its name is deprecated", stacklevel=2)
            from .msg.rcl_interfaces.msg import ParameterDescriptor

            descriptor = ParameterDescriptor(dynamic_typing=True)
        if isinstance(value, Parameter.Type):
            if value == Parameter.Type.NOT_SET:
                raise ValueError(f"Cannot declare parameter {{{name}}} as statically typed of type NOT_SET")
            got = self._params.declare(name, None, _descriptor_tuple(descriptor),
                                       ignore_override, int(value))
            return Parameter(name, value) if got is None else Parameter(name, value=got)
        if isinstance(value, Parameter):
            value = value.value
        got = self._params.declare(name, _plain(value), _descriptor_tuple(descriptor),
                                   ignore_override)
        return Parameter(name, value=got)

    def declare_parameters(self, namespace: str,
                           parameters: List[Tuple[Any, ...]],
                           ignore_override: bool = False) -> List[Parameter]:
        """Declares each ``(name[, value[, descriptor]])`` under ``namespace.``."""
        out = []
        for entry in parameters:
            name = f"{namespace}.{entry[0]}" if namespace else entry[0]
            value = entry[1] if len(entry) > 1 else None
            descriptor = entry[2] if len(entry) > 2 else None
            out.append(self.declare_parameter(name, value, descriptor, ignore_override))
        return out

    def undeclare_parameter(self, name: str) -> None:
        self._params.undeclare(name)

    def has_parameter(self, name: str) -> bool:
        return bool(self._params.has(name))

    # --- get ---------------------------------------------------------------
    def get_parameter(self, name: str) -> Parameter:
        t, value = self._params.get(name)
        return Parameter(name, Parameter.Type(t), value)

    def get_parameters(self, names: List[str]) -> List[Parameter]:
        return [self.get_parameter(n) for n in names]

    def get_parameter_or(self, name: str, alternative_value: Optional[Parameter] = None) -> Parameter:
        if alternative_value is None:
            alternative_value = Parameter(name, Parameter.Type.NOT_SET)
        if not self.has_parameter(name):
            return alternative_value
        t, value = self._params.get_unchecked(name)
        return alternative_value if t == 0 else Parameter(name, Parameter.Type(t), value)

    def get_parameters_by_prefix(self, prefix: str) -> Dict[str, Parameter]:
        full = prefix + "." if prefix else ""
        names, _ = self._params.list([])
        return {n[len(full):]: self.get_parameter(n) for n in names if n.startswith(full)}

    def get_parameter_type(self, name: str) -> _Type:
        t, _ = self._params.get_unchecked(name)
        return Parameter.Type(t)

    def get_parameter_types(self, names: List[str]) -> List[_Type]:
        return [self.get_parameter_type(n) for n in names]

    def describe_parameter(self, name: str) -> Descriptor:
        return _descriptor_msg(name, self._params.describe(name))

    def describe_parameters(self, names: List[str]) -> List[Descriptor]:
        return [self.describe_parameter(n) for n in names]

    def list_parameters(self, prefixes: List[str], depth: int) -> Any:
        from .msg.rcl_interfaces.msg import ListParametersResult

        if depth < 0:
            raise ValueError("The depth must be greater than or equal to zero")
        names, found = self._params.list(list(prefixes), depth)
        return ListParametersResult(names=names, prefixes=found)

    # --- set ---------------------------------------------------------------
    def set_parameters(self, parameter_list: List[Parameter]) -> List[Any]:
        """Sets each on its own: one ``SetParametersResult`` each."""
        return [self.set_parameters_atomically([p]) for p in parameter_list]

    def set_parameters_atomically(self, parameter_list: List[Parameter]) -> Any:
        """Sets all or none; raises ``ParameterNotDeclaredException`` for an
        undeclared name unless the node allows those (as rclpy does; the
        services answer with a refusal instead)."""
        pairs = _pairs(parameter_list)
        if not self._allow_undeclared:
            missing = [name for name, _ in pairs if not self._params.has(name)]
            if missing:
                raise ParameterNotDeclaredException("Invalid access to undeclared parameter(s)",
                                                    missing)
        return _result(*self._params.set_atomically(pairs))

    # --- callbacks ---------------------------------------------------------
    def add_on_set_parameters_callback(self, callback: Callable[[List[Parameter]], Any]) -> None:
        """``callback(parameters) -> SetParametersResult`` checks each set."""
        def run(pairs: List[Tuple[str, Any]]) -> Tuple[bool, str]:
            r = callback(_parameters(pairs))
            return bool(r.successful), str(r.reason)
        self._param_callbacks[id(callback)] = self._params.add_on_set(run)

    def remove_on_set_parameters_callback(self, callback: Callable[..., Any]) -> None:
        handle = self._param_callbacks.pop(id(callback), None)
        if handle is None:
            raise ValueError("the callback is not registered")
        handle.remove()

    def add_pre_set_parameters_callback(
            self, callback: Callable[[List[Parameter]], List[Parameter]]) -> None:
        """``callback(parameters) -> parameters`` may rewrite a set's list."""
        def run(pairs: List[Tuple[str, Any]]) -> List[Tuple[str, Any]]:
            return _pairs(callback(_parameters(pairs)))
        self._param_callbacks[id(callback)] = self._params.add_pre_set(run)

    remove_pre_set_parameters_callback = remove_on_set_parameters_callback

    def add_post_set_parameters_callback(self, callback: Callable[[List[Parameter]], None]) -> None:
        """``callback(parameters)`` after each successful set."""
        self._param_callbacks[id(callback)] = self._params.add_post_set(
            lambda pairs: callback(_parameters(pairs)))

    remove_post_set_parameters_callback = remove_on_set_parameters_callback
