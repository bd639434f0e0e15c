"""Plain data types that flow through the ingest and search pipelines.

Every stage reads and writes these, so a stage can be tested and swapped alone. They live in four
modules by concept: the stored records (:mod:`.records`), what a search returns (:mod:`.results`), the
trace of a retrieval (:mod:`.trace`) and what an operation did (:mod:`.reports`); every name is
importable from here.
"""

from __future__ import annotations

from anchormem.model.records import (
    CHANGE_KINDS,
    VERBATIM_SOURCES,
    ChangeKind,
    Context,
    Event,
    EventSource,
    Fact,
    FactSource,
    HistoryEntry,
    Scope,
    Supersession,
    Turn,
    stable_id,
)
from anchormem.model.reports import DeleteReport, ImportReport, IngestReport, Stats, UpdateReport, Usage
from anchormem.model.results import Answer, ContextHit, EventHit, FactHit, SearchResult
from anchormem.model.trace import ContextTrace, SignalTrace, Trace

__all__ = [
    "CHANGE_KINDS",
    "VERBATIM_SOURCES",
    "Answer",
    "ChangeKind",
    "Context",
    "ContextHit",
    "ContextTrace",
    "DeleteReport",
    "Event",
    "EventHit",
    "EventSource",
    "Fact",
    "FactHit",
    "FactSource",
    "HistoryEntry",
    "ImportReport",
    "IngestReport",
    "Scope",
    "SearchResult",
    "SignalTrace",
    "Stats",
    "Supersession",
    "Trace",
    "Turn",
    "UpdateReport",
    "Usage",
    "stable_id",
]
