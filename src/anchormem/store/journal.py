"""What this process's writes did to the rows retrieval reads, kept for a while per scope and version, so a
cached snapshot can be brought up to date by applying them instead of being loaded again.

A store appends one :class:`Change` per version it writes (after the transaction commits; a rolled-back
write leaves nothing). :meth:`Journal.since` hands back the changes from one version to another only when
this process wrote every one of them; a gap (another process wrote, or entries were dropped) means the
caller must load the scope again. Nothing forgotten survives here: removing records strips them from the
changes that added them, and dropping a scope drops its changes.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from anchormem.model import Context, Event, Fact, Scope
from anchormem.store.protocol import Matrix

KEPT_CHANGES = 256  # versions remembered per scope
KEPT_ROWS = 50_000  # rows (contexts, facts, events) remembered per scope; a bigger change is not kept


def _empty() -> Matrix:
    return np.zeros((0, 0), dtype=np.float32)


@dataclass(frozen=True, eq=False)
class Change:
    """The rows one write added to or removed from a scope (records in insertion order, vectors row by row).
    ``unknown``: the write did something this record cannot say; the scope must be loaded again. ``forgets``:
    the write removed or rewrote messages (a delete or an update); a snapshot is loaded again rather than grown
    by it, from this journal or from the store's log (``store.sql.changelog``)."""

    contexts: tuple[Context, ...] = ()
    facts: tuple[Fact, ...] = ()
    fact_vectors: Matrix = field(default_factory=_empty)
    events: tuple[Event, ...] = ()
    event_vectors: Matrix = field(default_factory=_empty)
    removed_contexts: tuple[str, ...] = ()
    removed_facts: tuple[str, ...] = ()
    removed_events: tuple[str, ...] = ()
    unknown: bool = False
    forgets: bool = False

    @property
    def rows(self) -> int:
        return len(self.contexts) + len(self.facts) + len(self.events)

    def without(self, contexts: set[str], facts: set[str], events: set[str]) -> Change:
        """This change less the added records whose ids are given (they were removed since)."""
        if not (
            any(c.id in contexts for c in self.contexts)
            or any(f.id in facts for f in self.facts)
            or any(e.id in events for e in self.events)
        ):
            return self
        keep_f = [i for i, f in enumerate(self.facts) if f.id not in facts]
        keep_e = [i for i, e in enumerate(self.events) if e.id not in events]
        return replace(
            self,
            contexts=tuple(c for c in self.contexts if c.id not in contexts),
            facts=tuple(self.facts[i] for i in keep_f),
            fact_vectors=self.fact_vectors[keep_f] if len(self.fact_vectors) else self.fact_vectors,
            events=tuple(self.events[i] for i in keep_e),
            event_vectors=self.event_vectors[keep_e] if len(self.event_vectors) else self.event_vectors,
        )


class Journal:
    """The recent :class:`Change` of each scope this process wrote, by version (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[Scope, deque[tuple[int, Change]]] = {}

    def record(self, scope: Scope, version: int, change: Change) -> None:
        if change.rows > KEPT_ROWS:
            change = Change(unknown=True)
        with self._lock:
            entries = self._entries.setdefault(scope, deque(maxlen=KEPT_CHANGES))
            entries.append((version, change))
            rows = sum(c.rows for _, c in entries)
            while rows > KEPT_ROWS and len(entries) > 1:
                rows -= entries.popleft()[1].rows
            removed = (set(change.removed_contexts), set(change.removed_facts), set(change.removed_events))
            if any(removed):
                for i in range(len(entries) - 1):
                    v, earlier = entries[i]
                    entries[i] = (v, earlier.without(*removed))

    def since(self, scope: Scope, version: int, until: int) -> list[Change] | None:
        """The changes of versions ``version + 1`` to ``until``, in order; None unless every one of them is
        known and none forgot messages (a snapshot grown by a forget would keep the forgotten words in its
        lexical vocabulary: the scope is loaded again)."""
        with self._lock:
            entries = list(self._entries.get(scope, ()))
        wanted = {v: c for v, c in entries if version < v <= until}
        if len(wanted) != until - version or any(c.unknown or c.forgets for c in wanted.values()):
            return None
        return [wanted[v] for v in range(version + 1, until + 1)]

    def drop(self, scopes: Sequence[Scope] | None = None) -> None:
        """Forget the changes of these scopes (all scopes: None)."""
        with self._lock:
            if scopes is None:
                self._entries.clear()
            for scope in scopes or ():
                self._entries.pop(scope, None)
