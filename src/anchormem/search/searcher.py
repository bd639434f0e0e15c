"""Searching a memory: the call's settings, the scope's snapshot, the filters, then retrieval.

:class:`~anchormem.memory.Memory` hands ``search`` here as it hands ``add`` to its
:class:`~anchormem.ingest.ingester.Ingester`: the :class:`Searcher` checks the call, reads what it
covers from the :class:`~anchormem.index.cache.SnapshotCache`, narrows it by the filters
(:mod:`anchormem.search.filters`), embeds the query and runs :func:`~anchormem.search.retrieve.retrieve`,
and counts the time spent in the memory's :class:`~anchormem.llm.accounting.Accounting`.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import replace

from anchormem._util.gcpause import paused_gc
from anchormem.config import RetrievalSettings
from anchormem.index.cache import SnapshotCache
from anchormem.llm.accounting import Accounting
from anchormem.llm.protocol import Completion
from anchormem.model import SearchResult
from anchormem.parts import Parts
from anchormem.search.filters import make_filters, restrict
from anchormem.search.retrieve import RECIPES, empty_result, query_vectors, retrieve
from anchormem.wire.args import SEARCH_KEYS, SearchArgs
from anchormem.wire.scopes import check_query, scope_of
from anchormem.wire.validation import check_bool, check_search


def call_settings(base: RetrievalSettings, options: SearchArgs, max_contexts: int | None = None) -> RetrievalSettings:
    """``base`` with what one call asks for: ``k`` facts, events and contexts, then ``max_contexts``,
    ``variant`` and ``max_chars`` (each left as configured when not given)."""
    k, variant, max_chars = options.get("k"), options.get("variant"), options.get("max_chars")
    settings = base
    if k is not None:
        settings = replace(settings, k_facts=k, k_events=k, max_contexts=k)
    if max_contexts is not None:
        settings = replace(settings, max_contexts=max_contexts)
    if variant is not None:
        settings = replace(settings, variant=variant)
    if max_chars is not None:
        settings = replace(settings, max_chars=max_chars)
    return settings


class Searcher:
    """Runs searches for one memory (see the module docstring)."""

    def __init__(self, parts: Parts, snapshots: SnapshotCache, accounting: Accounting) -> None:
        self._parts = parts
        self._snapshots = snapshots
        self._accounting = accounting

    def search(self, query: str, max_contexts: int | None, options: SearchArgs) -> SearchResult:
        """:meth:`Memory.search <anchormem.memory.Memory.search>`: the same arguments, the same result."""
        query = check_query(query)
        k, variant, max_chars = options.get("k"), options.get("variant"), options.get("max_chars")
        check_search(k, max_contexts, variant, RECIPES, max_chars)
        for flag in ("trace", "include_subscopes"):
            if flag in options:
                check_bool(options[flag], flag, "search")
        scope = scope_of(options, "search", SEARCH_KEYS)
        wanted = make_filters(
            options.get("filters"),
            session=options.get("session"),
            since=options.get("since"),
            until=options.get("until"),
        )
        loads = self._snapshots.loads
        snap = self._snapshots.covering(scope, include_subscopes=options.get("include_subscopes", True))
        # a scope loaded whole: the first retrieval builds its indexes, millions of lasting objects
        fresh = self._snapshots.loads != loads
        settings = call_settings(self._parts.settings.retrieval, options, max_contexts)
        traced = bool(options.get("trace"))
        if snap is None:  # nothing stored for this scope (yet, or any more)
            return empty_result(query, settings, traced)
        started = time.perf_counter()
        snap = restrict(snap, wanted)
        if not snap.contexts:
            return empty_result(query, settings, traced)
        vector, subject_vector = query_vectors(self._parts.embedder.embed, snap, query)
        with paused_gc() if fresh else nullcontext():
            result = retrieve(snap, query, vector, settings, subject_vector, trace=traced)
        self._accounting.record("retrieval", Completion(text=""), time.perf_counter() - started)
        return result
