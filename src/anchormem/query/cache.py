"""Retrieval snapshots kept per scope until the scope's stored version changes."""

from __future__ import annotations

import threading

from anchormem.model import Scope
from anchormem.parts import Parts
from anchormem.query.snapshot import ScopeSnapshot
from anchormem.scopes import no_memory


class SnapshotCache:
    """The scopes' :class:`ScopeSnapshot`, rebuilt when the store's version of the scope moves on."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._lock = threading.Lock()
        self._snapshots: dict[Scope, tuple[int, ScopeSnapshot]] = {}

    def get(self, scope: Scope) -> ScopeSnapshot:
        """The scope's memory as retrieval sees it (``NotFoundError`` for a scope with no memory)."""
        store = self._parts.store
        version = store.version(scope)
        if version == 0:
            raise no_memory(scope.user_id, scope.agent_id, scope.run_id)
        with self._lock:
            cached = self._snapshots.get(scope)
            if cached and cached[0] == version:
                return cached[1]
        facts, fact_vectors = store.fact_matrix(scope)
        events, event_vectors = store.event_matrix(scope)
        snap = ScopeSnapshot(
            contexts=store.contexts(scope),
            facts=facts,
            fact_vectors=fact_vectors,
            events=events,
            event_vectors=event_vectors,
            embed_texts=self._parts.embedder.embed,
            window_chars=self._parts.settings.chunking.chat_chars,
        )
        with self._lock:
            self._snapshots[scope] = (version, snap)
        return snap

    def forget(self, scope: Scope) -> None:
        """Drop what this process holds in memory about the scope: its snapshot, and the query-embedding
        cache (a past query may have quoted words that are now forgotten)."""
        with self._lock:
            self._snapshots.pop(scope, None)
        clear = getattr(self._parts.loaded_embedder, "clear", None)
        if callable(clear):
            clear()
