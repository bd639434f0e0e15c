"""Library results as plain JSON-ready data: one shape for the CLI's ``--json``, the REST API
and the MCP tools alike."""

from __future__ import annotations

import dataclasses
from typing import Any

from anchormem.model import IngestReport, SearchResult


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


def report_dict(report: IngestReport) -> dict[str, Any]:
    """An ingest report, its duration rounded to milliseconds."""
    data: dict[str, Any] = to_jsonable(report)
    data["seconds"] = round(report.seconds, 3)
    return data


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    return " ".join(text.split())
