"""What goes into the append-only history: counts, kinds of target and provenance, never content.

An entry says which operation changed a memory, when, how much, and which extractor,
LLM model and prompt versions produced the derived records. Deleted words are never
written here (forgetting means forgetting), and neither are the caller's labels of what
was added or deleted (session labels, turn ids, context ids): an entry outlives the records
it counts, and a label can itself say what the forgotten words were about. See docs/history.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from anchormem.model import DeleteReport, IngestReport, Scope, UpdateReport
from anchormem.prompts import events as events_prompt
from anchormem.prompts import facts as facts_prompt
from anchormem.store.protocol import Store

_ADD_COUNTS = (
    "turns_added",
    "contexts_added",
    "contexts_superseded",
    "facts_added",
    "events_added",
    "extractions_failed",
    "extractions_recovered",
    "integrations_failed",
    "llm_calls",
)


def provenance(llm_model: str | None, embedder: str, precomputed: bool = False) -> dict[str, Any]:
    """Which producer made the derived records of one operation."""
    if precomputed:
        facts = "pack"
    elif llm_model:
        facts = f"llm:{llm_model}:{facts_prompt.VERSION}"
    else:
        facts = "offline"
    events = f"llm:{llm_model}:{events_prompt.VERSION}" if llm_model else "extractive"
    return {"facts_by": facts, "events_by": events, "embedder": embedder}


def changed(report: IngestReport) -> bool:
    return any(getattr(report, name) for name in _ADD_COUNTS if name != "llm_calls")


def record_add(
    store: Store, scope: Scope, report: IngestReport, sessions: list[str], made_by: Mapping[str, Any], completed: bool
) -> None:
    detail: dict[str, Any] = {name: getattr(report, name) for name in _ADD_COUNTS}
    detail.update(sessions=len(sessions), completed=completed, **made_by)
    store.append_history(scope, "add", detail)


def record_delete(
    store: Store, scope: Scope, target: Mapping[str, Any], report: DeleteReport, made_by: Mapping[str, Any]
) -> None:
    detail: dict[str, Any] = {k: v for k, v in asdict(report).items() if k != "notes"}
    detail.update(target=next(iter(target), "unknown"), **made_by)
    store.append_history(scope, "delete", detail)


def record_update(store: Store, scope: Scope, report: UpdateReport, made_by: Mapping[str, Any]) -> None:
    """An ``update`` entry: counts superseded and derived again, never the turn id or either text."""
    detail: dict[str, Any] = {k: v for k, v in asdict(report).items() if k not in ("notes", "turn_id", "updated")}
    detail.update(target="turn", **made_by)
    store.append_history(scope, "update", detail)
