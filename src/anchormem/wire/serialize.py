"""Library results as plain JSON-ready data: one shape for the CLI's ``--json``, the REST API
and the MCP tools alike."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from anchormem.model import IngestReport, SearchResult
from anchormem.wire.validation import MAX_DEPTH

CLIPPED = "[nested too deeply: not shown]"
"""What stands for a part of a stored JSON value nested deeper than :data:`MAX_DEPTH` (stored before the
bound was checked at input): shown as this text, never recursed into."""


def to_jsonable(value: Any) -> Any:
    """Dataclasses as dicts (a :class:`SearchResult` also lists its ``turn_ids``), tuples as
    lists, dict keys as strings; everything else unchanged."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, SearchResult):
            out["turn_ids"] = value.turn_ids
            if value.trace is None:  # asked for with trace=True only
                del out["trace"]
        return out
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


def clip_depth(value: Any, depth: int = 0) -> Any:
    """A JSON value with every list or object nested deeper than :data:`MAX_DEPTH` replaced by
    :data:`CLIPPED`: what was stored before input depth was bounded reads back safely."""
    if isinstance(value, dict):
        if depth > MAX_DEPTH:
            return CLIPPED
        return {k: clip_depth(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if depth > MAX_DEPTH:
            return CLIPPED
        return [clip_depth(v, depth + 1) for v in value]
    return value


def stored_json(text: str) -> Any:
    """A stored JSON value read back with its depth clipped (:func:`clip_depth`); one too deep even for the
    JSON reader is :data:`CLIPPED` whole."""
    try:
        value = json.loads(text)
    except RecursionError:
        return CLIPPED
    return clip_depth(value)


def report_dict(report: IngestReport) -> dict[str, Any]:
    """An ingest report, its duration rounded to milliseconds."""
    data: dict[str, Any] = to_jsonable(report)
    data["seconds"] = round(report.seconds, 3)
    return data


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    return " ".join(text.split())
