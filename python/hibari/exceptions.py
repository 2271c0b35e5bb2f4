"""The exceptions hibari raises, named as rclpy names them
(``rclpy.exceptions``), so ``except`` clauses port with the imports."""

from __future__ import annotations

from typing import List, Union

from ._hibari import HibariError, ServiceGoneError, ServiceUnavailableError

__all__ = [
    "HibariError",
    "ServiceGoneError",
    "ServiceUnavailableError",
    "ParameterException",
    "ParameterNotDeclaredException",
    "ParameterAlreadyDeclaredException",
    "InvalidParameterException",
    "InvalidParameterValueException",
    "InvalidParameterTypeException",
    "ParameterImmutableException",
    "ParameterUninitializedException",
    "NotInitializedException",
    "ROSInterruptException",
    "InvalidHandle",
]


class ParameterException(Exception):
    """Base class of the parameter errors."""

    def __init__(self, message: str, parameters: Union[str, List[str], None] = None) -> None:
        super().__init__(message if parameters is None else f"{message}: {parameters}")


class ParameterNotDeclaredException(ParameterException):
    """A parameter was read or set without being declared."""


class ParameterAlreadyDeclaredException(ParameterException):
    """A parameter was declared twice."""


class InvalidParameterException(ParameterException):
    """A parameter name is not valid."""


class InvalidParameterValueException(ParameterException):
    """A declaration's value was refused (range, or an on-set callback)."""


class InvalidParameterTypeException(ParameterException):
    """A declaration's value (an override's) is of another type than declared."""


class ParameterImmutableException(ParameterException):
    """A read-only parameter was undeclared or redescribed."""


class ParameterUninitializedException(ParameterException):
    """A parameter declared with a type but no value was read before a set."""


class NotInitializedException(Exception):
    """The context is not initialized, or is shut down."""

    def __init__(self, *args: object) -> None:
        Exception.__init__(self, "hibari.init() has not been called", *args)


class ROSInterruptException(Exception):
    """A wait ended because the context shut down."""

    def __init__(self, *args: object) -> None:
        Exception.__init__(self, "hibari.shutdown() has been called", *args)


class InvalidHandle(Exception):
    """An object was used after it was destroyed (a node after ``destroy_node``)."""
