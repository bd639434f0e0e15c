"""Reading one field of an export record: each reader returns the value or raises an
:class:`InputError` naming the record and the field (see :mod:`anchormem.wire.validation` for the rules)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from anchormem.errors import InputError
from anchormem.model import Scope
from anchormem.wire.scopes import NO_USER
from anchormem.wire.validation import (
    MAX_COUNT,
    MAX_TEXT_CHARS,
    check_int,
    check_label,
    check_number,
    check_scope_id,
    check_text,
)


def vector(rec: Mapping[str, Any], place: str, dim: int) -> np.ndarray:
    raw = text(rec, "vector", place)
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InputError(f"{place}: 'vector' is not base64") from exc
    if len(data) != 4 * dim or dim == 0:
        raise InputError(f"{place}: 'vector' has {len(data) // 4} dimensions, the header says {dim}")
    values = np.frombuffer(data, dtype="<f4").astype(np.float32)
    if not np.isfinite(values).all():
        raise InputError(f"{place}: 'vector' holds NaN or infinite values")
    if not values.any():
        raise InputError(f"{place}: 'vector' is all zeros (no embedder gives that; no search could find this record)")
    return values


CONTEXT_CHARS = 4 * MAX_TEXT_CHARS  # a context quotes up to three turns, with speakers and dates


def text(rec: Mapping[str, Any], key: str, place: str, empty: bool = False, limit: int = MAX_TEXT_CHARS) -> str:
    value = rec.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise InputError(
            f"{place}: '{key}' must be a non-empty string" if not empty else f"{place}: '{key}' must be a string"
        )
    return check_text(value, key, place, limit=limit, empty=True)


def opt_text(rec: Mapping[str, Any], key: str, place: str, limit: int = MAX_TEXT_CHARS) -> str | None:
    return None if rec.get(key) is None else text(rec, key, place, empty=True, limit=limit)


def opt_object(rec: Mapping[str, Any], key: str, place: str) -> dict[str, Any] | None:
    """An optional JSON object (absent or null: None)."""
    value = rec.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InputError(f"{place}: '{key}' must be an object, got {type(value).__name__}")
    return value


def label(rec: Mapping[str, Any], key: str, place: str) -> str:
    return check_label(rec.get(key), key, place)


def opt_label(rec: Mapping[str, Any], key: str, place: str) -> str | None:
    return None if rec.get(key) is None else label(rec, key, place)


def scope_id(rec: Mapping[str, Any], key: str, place: str) -> str:
    try:
        return check_scope_id(rec.get(key), key)
    except InputError as exc:
        raise InputError(f"{place}: {exc}") from None


def scope_of(rec: Mapping[str, Any], place: str) -> Scope:
    """The scope a ``scope`` record names: a user, optionally narrowed, or an agent's own memory
    (``user_id`` ``""`` with an ``agent_id``)."""
    agent_id = opt_scope_id(rec, "agent_id", place)
    run_id = opt_scope_id(rec, "run_id", place)
    if rec.get("user_id") == NO_USER and agent_id is not None:
        return Scope(NO_USER, agent_id, run_id)
    return Scope(scope_id(rec, "user_id", place), agent_id, run_id)


def opt_scope_id(rec: Mapping[str, Any], key: str, place: str) -> str | None:
    return None if rec.get(key) is None else scope_id(rec, key, place)


def integer(rec: Mapping[str, Any], key: str, place: str) -> int:
    return check_int(rec.get(key), key, place)


def count(rec: Mapping[str, Any], key: str, place: str) -> int:
    return check_int(rec.get(key), key, place, high=MAX_COUNT)


def number(rec: Mapping[str, Any], key: str, place: str) -> float:
    return check_number(rec.get(key), key, place)


def labels(rec: Mapping[str, Any], key: str, place: str) -> list[str]:
    value = rec.get(key)
    if not isinstance(value, list):
        raise InputError(f"{place}: '{key}' must be a list of strings")
    return [check_label(v, key, place) for v in value]


def offsets(rec: Mapping[str, Any], place: str, count: int) -> tuple[tuple[int, int], ...]:
    """A context's piece offsets: absent, null or ``[]`` (whole messages: every export before passages)
    or one ``[start, end]`` pair per turn id, ``0 <= start <= end``."""
    value = rec.get("offsets")
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return ()
    if not isinstance(value, (list, tuple)) or len(value) != count:
        raise InputError(f"{place}: 'offsets' must be a list of {count} [start, end] pairs, one per turn id")
    out: list[tuple[int, int]] = []
    for pair in value:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InputError(f"{place}: 'offsets' must hold [start, end] pairs")
        start = check_int(pair[0], "offsets", place, high=MAX_TEXT_CHARS)
        end = check_int(pair[1], "offsets", place, low=start, high=MAX_TEXT_CHARS)
        out.append((start, end))
    return tuple(out)


def known(refs: Iterable[str], defined: set[str], kind: str, place: str) -> None:
    for ref in refs:
        if ref not in defined:
            raise InputError(f"{place}: refers to {kind} {ref!r}, which no earlier record defines")
