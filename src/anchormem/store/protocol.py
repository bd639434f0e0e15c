"""The store protocol: what the ingest and query pipelines need from persistence.

A store holds, per scope (one user's memory, optionally split by agent and run),
the raw turns, the immutable contexts, the facts with their vectors, the events
with their vectors, extraction status per context, LLM usage, and a version
counter that changes on every write (used to cache retrieval snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from anchormem.model import Context, Event, Fact, Scope, Turn, Usage

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ExtractionState:
    context_id: str
    status: str  # "pending" | "done" | "failed"
    error: str | None = None
    attempts: int = 0


@dataclass(frozen=True)
class Extraction:
    """The facts (with vectors, row per fact) extracted from one context."""

    context_id: str
    facts: Sequence[Fact]
    vectors: Matrix


@runtime_checkable
class Store(Protocol):
    def version(self, scope: Scope) -> int: ...

    def scopes(self) -> list[Scope]: ...

    # raw conversation and contexts
    def add_turns(self, scope: Scope, turns: Sequence[Turn]) -> list[Turn]: ...

    def turns(self, scope: Scope, session: str | None = None) -> list[Turn]: ...

    def add_contexts(self, scope: Scope, contexts: Sequence[Context]) -> list[Context]: ...

    def contexts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Context]: ...

    def extraction_states(self, scope: Scope) -> list[ExtractionState]: ...

    # facts
    def save_extractions(self, scope: Scope, extractions: Sequence[Extraction]) -> int: ...

    def mark_failed(self, scope: Scope, context_id: str, error: str) -> None: ...

    def facts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Fact]: ...

    def fact_matrix(self, scope: Scope) -> tuple[list[Fact], Matrix]: ...

    # events
    def add_events(self, scope: Scope, events: Sequence[Event], vectors: Matrix) -> int: ...

    def events(self, scope: Scope) -> list[Event]: ...

    def event_matrix(self, scope: Scope) -> tuple[list[Event], Matrix]: ...

    # accounting
    def record_usage(self, scope: Scope, usage: dict[str, Usage]) -> None: ...

    def usage(self, scope: Scope) -> dict[str, Usage]: ...

    def close(self) -> None: ...
