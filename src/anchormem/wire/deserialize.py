"""Library results rebuilt from their JSON form: the inverse of :func:`anchormem.wire.serialize.to_jsonable`.

``from_jsonable(SearchResult, data)`` walks the dataclass's fields and their type hints, so a field
added to :mod:`anchormem.model` is decoded without a change here. Keys the type does not have (such
as the ``turn_ids`` a ``SearchResult`` lists for readers) are ignored; a missing field takes its
default. Data of the wrong shape raises :class:`~anchormem.errors.InputError` naming the place.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

from anchormem.errors import InputError
from anchormem.model import Context, Event, Fact, Turn

T = TypeVar("T")

RECORD_TYPES: dict[str, type[Any]] = {"turns": Turn, "contexts": Context, "facts": Fact, "events": Event}


def record_type(record_id: str) -> type[Turn | Context | Fact | Event]:
    """The record type an id names, as :meth:`Memory.get` reads it: ``c-``, ``f-``, ``e-`` or a turn id."""
    return {"c-": Context, "f-": Fact, "e-": Event}.get(record_id[:2], Turn)


def from_jsonable(cls: type[T], data: Any, where: str = "") -> T:
    """``data`` (parsed JSON) as an instance of ``cls`` (a dataclass of :mod:`anchormem.model`, or a
    type built from them: ``list[Turn]``, ``dict[str, Usage]``, ...)."""
    value: T = _decode(cls, data, where or getattr(cls, "__name__", "value"))
    return value


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(hint: Any, data: Any, where: str) -> Any:
    if hint is Any:
        return data
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(hint, data, where)
    origin = get_origin(hint)
    args = get_args(hint)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        errors: list[str] = []
        for option in options:
            try:
                return _decode(option, data, where)
            except InputError as exc:
                errors.append(str(exc))
        raise InputError(errors[0] if errors else f"{where}: unexpected {_kind(data)}")
    if origin is Literal:
        if data not in args:
            raise InputError(f"{where}: {data!r} is not one of {', '.join(map(repr, args))}")
        return data
    if origin in (list, tuple):
        if not isinstance(data, list | tuple):
            raise InputError(f"{where}: expected a list, got {_kind(data)}")
        if origin is tuple and len(args) > 1 and args[-1] is not Ellipsis:  # a fixed-length tuple: (str, float)
            if len(data) != len(args):
                raise InputError(f"{where}: expected {len(args)} items, got {len(data)}")
            return tuple(_decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
        item = args[0] if args else Any
        items = [_decode(item, v, f"{where}[{i}]") for i, v in enumerate(data)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object, got {_kind(data)}")
        value_hint = args[1] if len(args) == 2 else Any
        return {k: _decode(value_hint, v, f"{where}.{k}") for k, v in data.items()}
    return _scalar(hint, data, where)


def _dataclass(cls: type[Any], data: Any, where: str) -> Any:
    if isinstance(data, cls):
        return data
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected an object, got {_kind(data)}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        if field.name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise InputError(f"{where}: the field {field.name!r} is missing")
            continue
        kwargs[field.name] = _decode(hints[field.name], data[field.name], f"{where}.{field.name}")
    return cls(**kwargs)


def _scalar(hint: Any, data: Any, where: str) -> Any:
    if hint is float and isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    if hint is int and isinstance(data, int) and not isinstance(data, bool):
        return data
    if hint in (str, bool) and isinstance(data, hint):
        return data
    if hint is type(None) and data is None:
        return None
    if isinstance(hint, type) and hint not in (int, float, str, bool) and isinstance(data, hint):
        return data
    raise InputError(f"{where}: expected {getattr(hint, '__name__', hint)}, got {_kind(data)}")


def _kind(data: Any) -> str:
    return "null" if data is None else type(data).__name__
