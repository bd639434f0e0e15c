"""The store protocol: what the ingest and query pipelines need from persistence.

A store holds, per scope (one user's memory, optionally split by agent and run),
the raw turns, the immutable contexts, the facts with their vectors, the events
with their vectors, extraction status per context, LLM usage, and a version
counter that changes on every write (used to cache retrieval snapshots).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from anchormem.model import Context, Event, Fact, HistoryEntry, Scope, Turn, Usage

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ExtractionState:
    context_id: str
    status: str  # "pending" | "done" | "failed" | "batch" (provisional anchors; the LLM's answer is awaited)
    error: str | None = None
    attempts: int = 0
    ungrounded: int = 0  # extracted facts its text did not support (see anchormem.ingest.grounding)


@dataclass(frozen=True)
class Counts:
    """How many records one scope holds (:meth:`Store.counts`)."""

    turns: int = 0
    sessions: int = 0  # distinct sessions of the turns
    contexts: int = 0
    facts: int = 0
    events: int = 0
    pending: int = 0  # contexts whose extraction has not run
    batch: int = 0  # contexts whose extraction waits for a batch answer (searchable by provisional anchors)
    unlinked: int = 0  # facts not yet seeds of the event graph (their events are still to be formed)
    failed: int = 0  # contexts whose extraction failed
    ungrounded: int = 0  # summed over the contexts (see ExtractionState.ungrounded)


@dataclass(frozen=True)
class Extraction:
    """The facts (with vectors, row per fact) extracted from one context."""

    context_id: str
    facts: Sequence[Fact]
    vectors: Matrix
    ungrounded: int = 0  # facts the LLM gave that the context did not support (dropped or kept)
    # "done": the context's facts; "batch": provisional anchors while its extraction waits for a batch answer
    # (stored linked, so no event forms on them; the context's next "done" extraction replaces them)
    status: str = "done"


@dataclass(frozen=True)
class SavedRequest:
    """The stored record of a write request sent with an idempotency key (see :meth:`Store.claim_request`)."""

    fingerprint: str  # what the first request was (method, path, body), hashed
    response: str | None  # its response as the service stored it; None while it runs
    created: float


@runtime_checkable
class Store(Protocol):
    # store-wide settings (the embedder a store's vectors come from: "embedder", "embedder_dim")
    def get_meta(self, key: str) -> str | None:
        """The value stored under ``key``, or None."""
        ...

    def set_meta(self, key: str, value: str) -> None: ...

    def version(self, scope: Scope) -> int: ...

    def scopes(self) -> list[Scope]: ...

    def scope_versions(self, under: Scope) -> dict[Scope, int]:
        """The version of ``under`` and of every stored sub-scope of it (the same user; the same agent
        and run where ``under`` names one), in the order of :meth:`scopes`; scopes never written are absent."""
        ...

    # raw conversation and contexts
    def add_turns(self, scope: Scope, turns: Sequence[Turn]) -> list[Turn]: ...

    def turns(self, scope: Scope, session: str | None = None, ids: Sequence[str] | None = None) -> list[Turn]:
        """The scope's turns in insertion order; only those of ``session`` and of ``ids`` where given."""
        ...

    def last_turn(self, scope: Scope) -> Turn | None:
        """The turn stored last in the scope (None: no turn)."""
        ...

    def add_contexts(self, scope: Scope, contexts: Sequence[Context]) -> list[Context]: ...

    def contexts(self, scope: Scope, ids: Sequence[str] | None = None, session: str | None = None) -> list[Context]:
        """The scope's contexts in insertion order; only those of ``ids`` and of ``session`` where given."""
        ...

    def extraction_states(
        self, scope: Scope, ids: Sequence[str] | None = None, status: Sequence[str] | None = None
    ) -> list[ExtractionState]:
        """The contexts' extraction states in insertion order; only those of ``ids`` and whose status is
        one of ``status`` where given."""
        ...

    def counts(self, scope: Scope) -> Counts:
        """How many records the scope holds, counted by the store (nothing loaded)."""
        ...

    # facts
    def save_extractions(self, scope: Scope, extractions: Sequence[Extraction]) -> int: ...

    def mark_failed(self, scope: Scope, context_id: str, error: str) -> None: ...

    def facts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Fact]: ...

    def fact_matrix(self, scope: Scope) -> tuple[list[Fact], Matrix]: ...

    # events
    def add_events(self, scope: Scope, events: Sequence[Event], vectors: Matrix) -> int: ...

    def events(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Event]:
        """The scope's events in insertion order; only those of ``ids`` where given."""
        ...

    def event_matrix(self, scope: Scope) -> tuple[list[Event], Matrix]: ...

    # accounting
    def record_usage(self, scope: Scope, usage: dict[str, Usage]) -> None: ...

    def usage(self, scope: Scope) -> dict[str, Usage]: ...

    # lifecycle: deletion, linking state, extraction state, history, scrubbing
    def delete_records(
        self,
        scope: Scope,
        *,
        turn_ids: Sequence[str] = (),
        context_ids: Sequence[str] = (),
        fact_ids: Sequence[str] = (),
        event_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        """Delete exactly these rows of ``scope`` in one transaction and bump its version.

        Deleting an event also drops its fact links; the event's member facts that are not
        deleted themselves are marked unlinked (see :meth:`unlinked_facts`) so the next
        linking re-forms clusters around them. Returns counts keyed ``turns``, ``contexts``,
        ``facts``, ``events``. The caller computes the cascade (see :mod:`anchormem.store.cascade`).
        """
        ...

    def update_turn(self, scope: Scope, turn_id: str, text: str) -> dict[str, int]:
        """Replace the text of one stored turn (its id, session, position, speaker, time and metadata stay)
        and, in the same transaction, delete every record derived from it as :meth:`delete_records` would
        for the turn (the contexts holding it, their facts, the events on those facts; surviving members of
        those events marked unlinked), then bump the version. Counts as in :meth:`delete_records`, with
        ``turns`` 1 when the turn was changed and 0 when the scope holds no such turn (nothing changed)."""
        ...

    def delete_scope(self, scope: Scope) -> dict[str, int]:
        """Delete every row of exactly this scope (turns, contexts, facts, events, usage, the scope
        itself; not its history) in one transaction. A scope created again later starts at a version
        above any it had, so cached snapshots never come back. Counts as in :meth:`delete_records`."""
        ...

    def unlinked_facts(self, scope: Scope) -> list[str]:
        """Ids of facts not yet used as seeds of the event graph (new facts, and facts whose event was
        deleted), in insertion order. :meth:`save_extractions` stores new facts unlinked."""
        ...

    def set_linked(self, scope: Scope, fact_ids: Sequence[str], linked: bool = True) -> None: ...

    def restore_states(self, scope: Scope, states: Sequence[ExtractionState]) -> None:
        """Set contexts' extraction status, error and attempts exactly (import)."""
        ...

    def append_history(
        self, scope: Scope, op: str, detail: Mapping[str, Any], timestamp: float | None = None
    ) -> HistoryEntry:
        """Append one entry (``timestamp`` defaults to now); entries are never changed or removed."""
        ...

    def history(self, scope: Scope, limit: int | None = None) -> list[HistoryEntry]:
        """Entries of ``scope`` and its finer scopes (agent_id/run_id None match any), oldest first;
        ``limit`` keeps the newest ``limit``."""
        ...

    # idempotent requests of the REST service (records keyed by owner and key; never memory content)
    def claim_request(
        self, owner: str, key: str, fingerprint: str, *, now: float, keep: float, lease: float, cap: int
    ) -> SavedRequest | None:
        """Claim ``key`` of ``owner`` for a request: None when this call claimed it (run the request, then
        :meth:`finish_request` or :meth:`release_request`), else the record already stored, in any process.
        First removes every record older than ``keep`` seconds at ``now``, and unanswered claims older than
        ``lease`` seconds (their process died); a new claim removes the owner's oldest answered records beyond
        ``cap``."""
        ...

    def finish_request(self, owner: str, key: str, response: str) -> None:
        """Store the response of a claimed request; retries with its key are answered from it."""
        ...

    def release_request(self, owner: str, key: str) -> None:
        """Drop an unanswered claim (the request failed), so a retry with the key runs again."""
        ...

    # keyed hashes of deleted turns (anchormem.lifecycle.forgotten): never words, never turn ids
    def meta_once(self, key: str, value: str) -> str:
        """``meta[key]``: set to ``value`` unless any process set it first; the stored value is returned."""
        ...

    def forget(self, scope: Scope, hashes: Sequence[str]) -> None:
        """Remember ``hashes`` (of deleted turns) for ``scope``; kept when the scope's records are deleted."""
        ...

    def unforget(self, scope: Scope, hashes: Sequence[str]) -> None:
        """Drop ``hashes`` from what ``scope`` remembers (those turns were added again on purpose)."""
        ...

    def forgotten(self, scope: Scope, hashes: Sequence[str]) -> set[str]:
        """Which of ``hashes`` ``scope`` remembers as deleted."""
        ...

    def transaction(self, scope: Scope) -> AbstractContextManager[None]:
        """One transaction for every write of ``scope`` made in the block by this thread: all of them are
        stored, or, if the block raises, none (a bulk write such as an import)."""
        ...

    def ping(self) -> None:
        """Raise :class:`~anchormem.errors.StoreError` unless the store answers now
        (:class:`~anchormem.errors.StoreUnavailableError`: a database server that cannot be reached)."""
        ...

    def scrub(self, full: bool = False) -> None:
        """Remove deleted rows from the store's files, as far as the backend can (see docs/forgetting.md).
        SQLite: secure_delete zeroes freed pages at once; the WAL is checkpointed and truncated (or, while a
        reader keeps it busy, at the next write). PostgreSQL: ``VACUUM``; ``full=True`` rewrites the
        tables into new files (``VACUUM FULL``, an exclusive lock per table) and requests a checkpoint."""
        ...

    def close(self) -> None: ...
