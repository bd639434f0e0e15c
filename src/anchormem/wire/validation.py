"""What a value crossing the boundary may hold: texts, labels (ids, sessions, dates), scope ids, bounds.

One place decides, so the file readers, the REST API, the MCP tools, delete selectors and import
refuse the same things with the same words. A refusal is an :class:`InputError` that names the place
and the field; nothing is written before every value passed.

Characters no store can keep are refused everywhere: a NUL byte (PostgreSQL text cannot hold one)
and a lone UTF-16 surrogate (not encodable as UTF-8). Labels (ids, session labels, timestamps,
dates, scope ids) also refuse control characters such as CR and LF, and are short.
"""

from __future__ import annotations

import json
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
MAX_DEPTH = 16
"""How deeply a JSON value (a message's metadata, an imported record's field) may nest: lists and objects
inside lists and objects. Deeper values are refused where they come in, so nothing that reads a stored value
back (listings, export, the CLI) ever recurses without bound."""


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


def check_bool(value: object, name: str, place: str | None = None) -> bool:
    """A real boolean: ``True`` or ``False``. The strings ``"false"``, ``"no"``, ``"0"``, numbers and lists are
    refused, never read as true or false."""
    if not isinstance(value, bool):
        where = f"{place}: " if place else ""
        raise InputError(f"{where}'{name}' must be true or false (a boolean), got {type(value).__name__} {value!r:.40}")
    return value


def check_json(value: object, name: str, place: str, depth: int = 0) -> None:
    """A JSON value whose strings (keys included) can be stored, whose numbers are finite and which nests at
    most :data:`MAX_DEPTH` levels deep."""
    if depth > MAX_DEPTH:
        raise InputError(f"{place}: '{name}' is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        check_text(value, name, place, empty=True)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{place}: '{name}' holds a number that is not finite")
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_COUNT:
        raise InputError(f"{place}: '{name}' holds an integer out of range")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"{place}: '{name}' keys must be strings, got {type(key).__name__}")
            check_text(key, name, place, empty=True)
            check_json(item, name, place, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_json(item, name, place, depth + 1)
    elif value is not None and not isinstance(value, (bool, int, float)):
        raise InputError(
            f"{place}: '{name}' must hold only JSON values (strings, numbers, true/false, null, lists, objects), "
            f"not a {type(value).__name__}"
        )


def check_metadata(value: object, place: str, *, limit: int = MAX_TEXT_CHARS) -> dict[str, Any] | None:
    """A message's (or an imported turn's) ``metadata``: absent, or a JSON object with string keys, at most
    :data:`MAX_DEPTH` levels deep, without NUL bytes or lone surrogates in any key or value, and at most
    ``limit`` characters as JSON. Returns a plain copy (``dict``/``list`` only)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"{place}: 'metadata' must be an object, got {type(value).__name__}")
    check_json(value, "metadata", place)  # bounded depth first: nothing below recurses past MAX_DEPTH
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if len(text) > limit:
        raise InputError(f"{place}: 'metadata' is {len(text):,} characters as JSON; the limit is {limit:,}")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


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
