"""Precomputed facts and events (batch extraction done elsewhere), read from their files.

Facts file: JSONL, one record per context with ``dia_ids`` (the context's turn ids,
in order) and ``facts`` (list of strings); optional ``sample_id`` to pick the
conversation. Events file: JSONL with ``event`` (text) and ``source_facts`` (fact
texts); optional ``sample_id``. Facts attach to contexts by turn ids; events attach
to facts by text.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anchormem.errors import InputError
from anchormem.ingest.precomputed import Precomputed
from anchormem.ingest.sources import read_json_file


def _records(path: Path) -> list[Mapping[str, Any]]:
    data = read_json_file(path)
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(r, Mapping) for r in data):
        raise InputError(f"{path}: expected JSON objects, one per line")
    return data


def _str_list(value: Any, place: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{place}: expected a list of strings")
    return [v.strip() for v in value if v.strip()]


def load_facts(path: str | Path, sample_id: str | None = None) -> dict[tuple[str, ...], list[str]]:
    path = Path(path)
    out: dict[tuple[str, ...], list[str]] = {}
    for i, rec in enumerate(_records(path), 1):
        if sample_id is not None and rec.get("sample_id", sample_id) != sample_id:
            continue
        place = f"{path}: record {i}"
        if "dia_ids" not in rec or "facts" not in rec:
            raise InputError(f"{place}: needs 'dia_ids' and 'facts'")
        key = tuple(_str_list(rec["dia_ids"], place + " dia_ids"))
        out.setdefault(key, []).extend(_str_list(rec["facts"], place + " facts"))
    return out


def load_events(path: str | Path, sample_id: str | None = None) -> list[tuple[str, list[str]]]:
    path = Path(path)
    out: list[tuple[str, list[str]]] = []
    for i, rec in enumerate(_records(path), 1):
        if sample_id is not None and rec.get("sample_id", sample_id) != sample_id:
            continue
        place = f"{path}: record {i}"
        text = rec.get("event")
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"{place}: 'event' must be a non-empty string")
        out.append((text.strip(), _str_list(rec.get("source_facts"), place + " source_facts")))
    return out


def load_precomputed(
    facts_path: str | Path | None, events_path: str | Path | None, sample_id: str | None = None
) -> Precomputed | None:
    if facts_path is None and events_path is None:
        return None
    return Precomputed(
        facts=load_facts(facts_path, sample_id) if facts_path else {},
        events=load_events(events_path, sample_id) if events_path else None,
    )
