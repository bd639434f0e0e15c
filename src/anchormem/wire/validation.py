"""What a value crossing the boundary may hold: texts, labels (ids, sessions, dates), scope ids, bounds.

One place decides, so the file readers, the REST API, the MCP tools, delete selectors and import
refuse the same things with the same words. A refusal is an :class:`InputError` that names the place
and the field; nothing is written before every value passed.

Characters no store can keep are refused everywhere: a NUL byte (PostgreSQL text cannot hold one)
and a lone UTF-16 surrogate (not encodable as UTF-8). Labels (ids, session labels, timestamps,
dates, scope ids) also refuse control characters such as CR and LF, and are short.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection, Mapping
from typing import Any

from anchormem.errors import InputError

MAX_TEXT_CHARS = 100_000
"""A turn's text, a fact's or an event's text."""
MAX_LABEL_CHARS = 256
"""Turn ids, session labels, timestamps, dates, scope ids."""
MAX_CAPTION_CHARS = 10_000
"""An image caption."""
MAX_TURNS = 20_000
"""Turns in one add over the service (REST ``messages``, a LoCoMo ``conversation``, MCP)."""
MAX_RESULTS = 200
"""``k`` and ``max_contexts`` of a search over the service."""
MAX_DIM = 16_000
"""Vector dimensions (pgvector's limit for a stored vector)."""
MAX_INT = 2**31 - 1
"""Positions and attempt counts (a 32-bit column)."""
MAX_COUNT = 2**63 - 1
"""Usage counters (a 64-bit column)."""


def bad_character(value: str) -> str | None:
    """Why ``value`` cannot be stored, or None: a NUL byte or a lone surrogate."""
    if "\x00" in value:
        return "a NUL byte"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate (character {exc.start + 1}, not valid Unicode text)"
    return None


def _problem(value: str, limit: int, *, label: bool, empty: bool) -> str | None:
    bad = bad_character(value)
    if bad:
        return f"contains {bad}"
    if len(value) > limit:
        return f"is {len(value):,} characters; the limit is {limit:,}"
    if not empty and not value.strip():
        return "is empty"
    if label and any(unicodedata.category(c) == "Cc" for c in value):
        return "contains a control character (such as a line break)"
    return None


def check_text(value: object, name: str, place: str, *, limit: int = MAX_TEXT_CHARS, empty: bool = False) -> str:
    """A free text: a string without NUL bytes or lone surrogates, at most ``limit`` characters."""
    return _checked_string(value, name, place, limit, label=False, empty=empty)


def check_label(value: object, name: str, place: str, *, limit: int = MAX_LABEL_CHARS) -> str:
    """An identifier-like string (id, session, timestamp, date): non-empty, short, no control characters."""
    return _checked_string(value, name, place, limit, label=True, empty=False)


def _checked_string(value: object, name: str, place: str, limit: int, *, label: bool, empty: bool) -> str:
    if not isinstance(value, str):
        raise InputError(f"{place}: '{name}' must be a string, got {type(value).__name__}")
    problem = _problem(value, limit, label=label, empty=empty)
    if problem:
        raise InputError(f"{place}: '{name}' {problem}")
    return value


def check_scope_id(value: object, name: str) -> str:
    """A user, agent or run id: a label that is not only whitespace."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{name} must be a non-empty string")
    problem = _problem(value, MAX_LABEL_CHARS, label=True, empty=False)
    if problem:
        raise InputError(f"{name} {problem}")
    return value


def check_int(value: object, name: str, place: str, *, low: int = 0, high: int = MAX_INT) -> int:
    """An integer (not a bool) in ``low..high``."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(f"{place}: '{name}' must be an integer from {low:,} to {high:,}")
    return value


def check_number(value: object, name: str, place: str) -> float:
    """A finite number (not a bool)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise InputError(f"{place}: '{name}' must be a finite number")
    return float(value)


def check_json(value: object, name: str, place: str, depth: int = 0) -> None:
    """A JSON value whose strings (keys included) can be stored and whose numbers are finite."""
    if depth > 16:
        raise InputError(f"{place}: '{name}' is nested too deeply")
    if isinstance(value, str):
        check_text(value, name, place, empty=True)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{place}: '{name}' holds a number that is not finite")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT:
        raise InputError(f"{place}: '{name}' holds an integer out of range")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_text(key, name, place, empty=True)
            check_json(item, name, place, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_json(item, name, place, depth + 1)
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise InputError(f"{place}: '{name}' holds a {type(value).__name__}, not JSON")


def check_turn_count(count: int, place: str, limit: int | None) -> None:
    if limit is not None and count > limit:
        raise InputError(f"{place}: {count:,} turns; the limit is {limit:,} per request")


def check_search(k: Any, max_contexts: Any, variant: Any, variants: Collection[str], max_chars: Any = None) -> None:
    """Per-call retrieval parameters: positive integers and one of ``variants`` (the known recipes)."""
    for name, value in (("k", k), ("max_contexts", max_contexts), ("max_chars", max_chars)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise InputError(f"{name} must be a positive integer")
    if variant is not None and variant not in variants:
        raise InputError(f"unknown retrieval variant {str(variant)[:40]!r}; choose one of {', '.join(variants)}")
