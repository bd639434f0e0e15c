"""Several scopes' snapshots as one: what a search of a user (or of a user's agent) looks through.

A user's search covers the user's own scope and every agent and run scope under it
(:meth:`~anchormem.store.protocol.Store.scope_versions`). Context, fact and event ids hold their scope
(``ingest.chunk`` hashes it in), so they stay distinct when merged; turn ids do not (every LoCoMo run
has a "D1:3"), so the merged snapshot keeps each context's scope (``context_scopes``) and keys turns by
scope and id (:meth:`~anchormem.index.snapshot.ScopeSnapshot.turn_key`).
"""

from __future__ import annotations

from collections.abc import Sequence

from anchormem.index.rows import Blocks
from anchormem.index.snapshot import ScopeSnapshot, Vectors
from anchormem.index.store_rows import StackedRows, lazy
from anchormem.model import Scope, Turn


def merge_snapshots(parts: Sequence[tuple[Scope, ScopeSnapshot]]) -> ScopeSnapshot:
    """One snapshot of ``parts`` (each a scope and its own snapshot), contexts in the parts' order
    (each part in its conversation order), then facts and events likewise."""
    if len(parts) == 1 and parts[0][1].context_scopes:
        return parts[0][1]
    first = parts[0][1]
    scopes: list[Scope] = []
    for scope, snap in parts:
        scopes.extend(snap.context_scopes or (scope,) * len(snap.contexts))
    with_events = [snap for _, snap in parts if snap.events]

    def load_turns() -> list[tuple[Scope | None, Turn]]:
        out: list[tuple[Scope | None, Turn]] = []
        for _, snap in parts:
            out.extend((key[0], turn) for key, turn in snap.turns.items())
        return out

    return ScopeSnapshot(
        contexts=[c for _, snap in parts for c in snap.contexts],
        facts=[f for _, snap in parts for f in snap.facts],
        fact_vectors=_stack([snap.fact_vectors for _, snap in parts], first.fact_vectors.shape[1]),
        events=[e for snap in with_events for e in snap.events],
        event_vectors=_stack([snap.event_vectors for snap in with_events], 0),
        embed_texts=first.embed_texts,
        window_chars=first.window_chars,
        context_scopes=tuple(scopes),
        load_turns=load_turns,
    )


def _stack(matrices: Sequence[Vectors], dim: int) -> Blocks:
    """The rows of ``matrices`` one after another, sharing their blocks (no copy); rows left in the store
    (a scope searched through its index, ``query.store_rows``) stay there."""
    if any(lazy(m) for m in matrices):
        return StackedRows([Blocks.of(m) for m in matrices], dim)
    blocks = [b for m in matrices for b in Blocks.of(m).blocks]
    return Blocks(blocks, int(blocks[0].shape[1]) if blocks else dim)
