"""Methods declared as a table row: ``search = Bound(call, Memory.search)`` is, read on an instance, ``call``
with that instance bound first, under the name, docstring and parameters of the method it stands for.

:class:`~anchormem.aio.AsyncMemory` makes its methods this way from ``Memory``'s (each runs the sync one in
a worker thread), and the REST clients from the request flows of :mod:`anchormem.client.calls` (each drives
its flow with blocking I/O or with ``await``). So a method's signature is written once, where it is
implemented, and type checkers see it on every facade (``P``), with the facade's own result type (``R``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

Owner = TypeVar("Owner")
P = ParamSpec("P")
R = TypeVar("R")


class Bound(Generic[Owner, P, R]):
    """A method of class ``Owner`` that calls ``call(instance, *args, **kwargs)`` and presents itself as ``like``:
    its name, docstring and parameters (a leading ``self`` left out, no return annotation: ``call``
    answers in the facade's own way, e.g. awaitable)."""

    def __init__(self, call: Callable[Concatenate[Owner, P], R], like: Callable[..., Any]) -> None:
        self.call = call
        self.like = like
        self.__doc__ = like.__doc__
        self._signature: inspect.Signature | None = None

    @property
    def signature(self) -> inspect.Signature:
        if self._signature is None:
            sig = inspect.signature(self.like)
            params = list(sig.parameters.values())
            if params and params[0].name == "self":
                params = params[1:]
            self._signature = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
        return self._signature

    @overload
    def __get__(self, instance: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, instance: Owner, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, instance: Owner | None, owner: type[Any]) -> Self | Callable[P, R]:
        if instance is None:
            return self
        method = functools.partial(self.call, instance)  # a partial of a coroutine function is one too
        functools.update_wrapper(method, self.like)
        method.__signature__ = self.signature  # type: ignore[attr-defined]
        return method
