"""A snapshot grown by the writes this process made, instead of one loaded again: the agent's loop (search,
reply, add, search) costs what the add changed, not the whole memory.

:func:`evolve` applies :class:`~anchormem.store.journal.Change` records (rows added and removed, in the order
the store wrote them) to a :class:`~anchormem.index.snapshot.ScopeSnapshot` and returns a new snapshot whose
rows are exactly those a fresh load would read: the old rows less the removed ones, in their order, then
the added ones in insertion order (the store's order). The old snapshot is not changed; a search that still
reads it is not disturbed. The derived indexes the old snapshot had built are carried over and brought up to
date — vectors share their blocks (:mod:`anchormem.index.rows`), the lexical indexes add and remove
documents (:meth:`~anchormem.text.lexical.BM25Index.changed`), per-row lists are sliced, the id maps
copied and mended from the first moved row on — and those it had not built are built on first use, as in a
loaded snapshot. ``tests/test_snapshot_evolve.py`` checks that searches of an evolved snapshot equal
searches of a loaded one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from anchormem.index.neighbours import FactNeighbours
from anchormem.index.rows import Blocks
from anchormem.index.shared_list import SharedList
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.index.store_rows import lazy
from anchormem.model import VERBATIM_SOURCES, Context, Event, Fact, Scope
from anchormem.store.capabilities import ChangeFeed, ChangeJournal
from anchormem.store.journal import Change
from anchormem.store.protocol import Store
from anchormem.text.voice import anchor_speaker

T = TypeVar("T")
Rows = list[int]


@dataclass
class _Net:
    """Several changes as one: the old rows' ids removed, and the records added (with their vectors) that
    are still there at the end, in order."""

    removed: dict[str, set[str]] = field(default_factory=lambda: {"contexts": set(), "facts": set(), "events": set()})
    contexts: dict[str, Context] = field(default_factory=dict)
    facts: dict[str, tuple[Fact, npt.NDArray[np.float32]]] = field(default_factory=dict)
    events: dict[str, tuple[Event, npt.NDArray[np.float32]]] = field(default_factory=dict)

    def add(self, change: Change) -> None:
        for kind, ids in (
            ("contexts", change.removed_contexts),
            ("facts", change.removed_facts),
            ("events", change.removed_events),
        ):
            added: dict[str, Any] = getattr(self, kind)
            for rid in ids:
                if rid in added:
                    del added[rid]
                else:
                    self.removed[kind].add(rid)
        for c in change.contexts:
            self.contexts[c.id] = c
        for f, v in zip(change.facts, change.fact_vectors, strict=False):
            self.facts[f.id] = (f, v)
        for e, v in zip(change.events, change.event_vectors, strict=False):
            self.events[e.id] = (e, v)

    def drop_held(self, old: ScopeSnapshot) -> None:
        """Leave out the added records ``old`` already holds (and that the changes do not remove): a whole load
        may read rows written after the version it is labelled with, and is then brought up to date by changes
        that add them again."""
        held = (("contexts", old.context_row), ("facts", old.fact_row), ("events", old.event_row))
        for kind, rows in held:
            added: dict[str, Any] = getattr(self, kind)
            for rid in [r for r in added if r not in self.removed[kind] and r in rows]:
                del added[rid]


def _rows_of(ids: set[str], row: Mapping[str, int]) -> Rows:
    return sorted(row[i] for i in ids if i in row)


def _kept(items: Sequence[T], removed: Rows) -> list[T]:
    """``items`` without the rows ``removed`` (sorted), by slices."""
    if not removed:
        return list(items)
    out: list[T] = []
    start = 0
    for r in removed:
        out.extend(items[start:r])
        start = r + 1
    out.extend(items[start:])
    return out


def _remap(n: int, removed: Rows) -> npt.NDArray[np.int64]:
    """Old row -> new row (-1: removed)."""
    keep = np.ones(n, dtype=bool)
    keep[removed] = False
    out = np.full(n, -1, dtype=np.int64)
    out[keep] = np.arange(int(keep.sum()), dtype=np.int64)
    return out


def changes_since(store: Store, scope: Scope, version: int, until: int) -> list[Change] | None:
    """What a snapshot of ``scope`` at ``version`` needs to reach ``until``: this process's own writes, from the
    store's journal (:mod:`anchormem.store.journal`), else every process's, from the store's log of added and
    removed ids (``SQLStore.changes_since``); None when neither holds them all, or one of them forgot messages (the
    scope is then loaded whole)."""
    changes = store.journal.since(scope, version, until) if isinstance(store, ChangeJournal) else None
    if changes is None and isinstance(store, ChangeFeed):  # another process wrote: what did it add and remove?
        changes = store.changes_since(scope, version, until)
    return changes


def evolve(old: ScopeSnapshot, changes: Sequence[Change]) -> ScopeSnapshot:
    """``old`` with ``changes`` applied (see the module docstring)."""
    net = _Net()
    for change in changes:
        net.add(change)
    net.drop_held(old)
    cached = old.__dict__
    gone_c = _rows_of(net.removed["contexts"], old.context_row)
    gone_f = _rows_of(net.removed["facts"], old.fact_row)
    gone_e = _rows_of(net.removed["events"], old.event_row) if old.events else []
    new_contexts = list(net.contexts.values())
    new_facts = [f for f, _ in net.facts.values()]
    new_events = [e for e, _ in net.events.values()]
    dim = old.fact_vectors.shape[1] or (len(next(iter(net.facts.values()))[1]) if net.facts else 0)
    fact_vectors = Blocks.of(old.fact_vectors).without(gone_f).plus(_stack([v for _, v in net.facts.values()], dim))
    event_dim = old.event_vectors.shape[1] or dim
    event_vectors = (
        Blocks.of(old.event_vectors).without(gone_e).plus(_stack([v for _, v in net.events.values()], event_dim))
    )
    contexts = _kept(old.contexts, gone_c) + new_contexts
    facts = SharedList.of(old.facts).without(gone_f).plus(new_facts)  # the old parts shared, not copied
    events = SharedList.of(old.events).without(gone_e).plus(new_events)
    scope = old.context_scopes[0] if old.context_scopes else None
    snap = replace(  # the old snapshot's settings and turn loader; its derived indexes are carried below
        old,
        contexts=contexts,
        facts=facts,
        fact_vectors=fact_vectors,
        events=events,
        event_vectors=event_vectors,
        context_scopes=(scope,) * len(contexts) if scope is not None else (),
        restricted={},
    )
    carry: dict[str, Any] = {"several_scopes": False} if scope is not None and not old.several_scopes else {}
    grown: tuple[tuple[str, Rows, Sequence[Any], Sequence[Any]], ...] = (
        ("context_row", gone_c, new_contexts, contexts),
        ("fact_row", gone_f, new_facts, facts),
        ("event_row", gone_e, new_events, events),
    )
    for name, gone, new_rows, records in grown:
        if name in cached:
            carry[name] = cached[name].changed(gone, [r.id for r in new_rows], _Ids(records))
    snap.__dict__.update(carry)
    if "fact_context" in cached:
        cmap = _remap(len(old.contexts), gone_c)
        kept = np.delete(old.fact_context, gone_f) if gone_f else old.fact_context
        kept = np.where(kept >= 0, cmap[np.maximum(kept, 0)], -1)
        placed = snap.context_row.rows_of([f.context_id for f in new_facts])
        snap.__dict__["fact_context"] = np.concatenate([kept, placed]).astype(np.int64)
    index: FactNeighbours | None = cached.get("fact_neighbours")
    if index is not None:  # None (a small memory) is asked again: it may have grown
        added = fact_vectors[np.arange(len(facts) - len(new_facts), len(facts))]
        snap.__dict__["fact_neighbours"] = index.changed(gone_f, added)
    moved = _Moved(gone_c, gone_f, new_contexts, new_facts)
    _carry_lists(old, snap, moved)
    _carry_lexical(old, snap, moved)
    _carry_events(old, snap, net)
    _carry_speakers(old, snap, gone_f, new_facts)
    return snap


class _Ids(Sequence[str]):
    """The ids of a list of records, read when asked (for iterating a RowIndex)."""

    def __init__(self, records: Sequence[Any]) -> None:
        self._records = records

    def __len__(self) -> int:
        return len(self._records)

    def __getitem__(self, i: Any) -> Any:
        return self._records[i].id if isinstance(i, int) else [r.id for r in self._records[i]]


@dataclass(frozen=True)
class _Moved:
    """The old context and fact rows removed (sorted) and the records appended."""

    gone_c: Rows
    gone_f: Rows
    new_contexts: list[Context]
    new_facts: list[Fact]


def _stack(vectors: list[npt.NDArray[np.float32]], dim: int) -> npt.NDArray[np.float32]:
    if not vectors:
        return np.zeros((0, dim), dtype=np.float32)
    return np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)


def _carry_lists(old: ScopeSnapshot, snap: ScopeSnapshot, moved: _Moved) -> None:
    """The per-row lists: piece keys and turn segments, window shares, speakers of facts."""
    gone_c, gone_f, new_contexts, new_facts = moved.gone_c, moved.gone_f, moved.new_contexts, moved.new_facts
    cached = old.__dict__
    n_old = len(old.contexts)
    first_new = n_old - len(gone_c)
    if "context_turns" in cached:
        turns = _kept(old.context_turns, gone_c)
        snap.__dict__["context_turns"] = turns + [
            frozenset(snap.piece_keys(r)) for r in range(first_new, len(snap.contexts))
        ]
    if "context_share" in cached and "context_turns" in snap.__dict__:
        shares = _kept(old.context_share, gone_c) + [0.0] * len(new_contexts)
        # a row's share depends on its session neighbours: recompute the rows next to a removed or added one
        touched: set[int] = set(range(max(0, first_new - 1), len(snap.contexts)))
        for i, r in enumerate(gone_c):
            at = r - i  # the row that took the removed one's place
            touched.update((at - 1, at))
        for row in sorted(t for t in touched if 0 <= t < len(snap.contexts)):
            shares[row] = snap.share_of(row)
        snap.__dict__["context_share"] = shares
    if "turn_segments" in cached and "piece_numbers" in cached:
        ctx_rows, turn_rows, _ = old.turn_segments
        cmap = _remap(n_old, gone_c)
        shifted = cmap[ctx_rows]
        keep = shifted >= 0
        numbers = old.piece_numbers  # shared: numbers only grow
        extra_ctx: list[int] = []
        extra_turn: list[int] = []
        for row in range(first_new, len(snap.contexts)):
            for key in snap.piece_keys(row):
                extra_ctx.append(row)
                extra_turn.append(numbers.setdefault(key, len(numbers)))
        snap.__dict__["piece_numbers"] = numbers
        snap.__dict__["turn_segments"] = (
            np.concatenate([shifted[keep], np.asarray(extra_ctx, dtype=np.int64)]),
            np.concatenate([turn_rows[keep], np.asarray(extra_turn, dtype=np.int64)]),
            len(numbers),
        )
    if "context_times" in cached:
        fresh_times = ScopeSnapshot(contexts=new_contexts, facts=[], fact_vectors=_stack([], 0)).context_times
        snap.__dict__["context_times"] = np.concatenate([np.delete(old.context_times, gone_c), fresh_times])
    if "session_codes" in cached and "session_numbers" in cached and not old.several_scopes:
        sessions = old.session_numbers  # shared: numbers only grow
        added_codes = [sessions.setdefault(c.session, len(sessions)) for c in new_contexts]
        snap.__dict__["session_numbers"] = sessions
        snap.__dict__["session_codes"] = np.concatenate(
            [np.delete(old.session_codes, gone_c), np.asarray(added_codes, dtype=np.int64)]
        )
    if "fact_speakers" in cached:
        snap.__dict__["fact_speakers"] = (
            SharedList.of(old.fact_speakers)
            .without(gone_f)
            .plus(anchor_speaker(f.text) if f.source in VERBATIM_SOURCES else None for f in new_facts)
        )


def _carry_lexical(old: ScopeSnapshot, snap: ScopeSnapshot, moved: _Moved) -> None:
    gone_c, gone_f, new_contexts, new_facts = moved.gone_c, moved.gone_f, moved.new_contexts, moved.new_facts
    cached = old.__dict__
    if "context_bm25" in cached:
        snap.__dict__["context_bm25"] = old.context_bm25.changed(
            gone_c, [old.contexts[r].text for r in gone_c], [c.text for c in new_contexts]
        )
    if "context_subwords" in cached:
        snap.__dict__["context_subwords"] = old.context_subwords.changed(
            gone_c, [old.contexts[r].text for r in gone_c], [c.text for c in new_contexts]
        )
    if "fact_bm25" in cached:
        snap.__dict__["fact_bm25"] = old.fact_bm25.changed(
            gone_f, [old.facts[r].text for r in gone_f], [f.text for f in new_facts]
        )


def _carry_events(old: ScopeSnapshot, snap: ScopeSnapshot, net: _Net) -> None:
    """Fact id -> event ids: shared with the old snapshot, gaining the new events (removed ones stay in it;
    readers check ids against the snapshot's ``event_row``)."""
    if "fact_event_ids" not in old.__dict__:
        return
    out = old.fact_event_ids
    for e, _ in net.events.values():
        for fid in e.fact_ids:
            out[fid] = (*out.get(fid, ()), e.id)  # a new tuple: a reader never sees one half made
    snap.__dict__["fact_event_ids"] = out


def _carry_speakers(old: ScopeSnapshot, snap: ScopeSnapshot, gone_f: Rows, new_facts: list[Fact]) -> None:
    if "speaker_sums" not in old.__dict__ or "fact_speakers" not in snap.__dict__:
        return
    if gone_f and lazy(old.fact_vectors):  # a removed row's vector left the store with it: sum again on use
        return
    sums = {who: (total.copy(), n) for who, (total, n) in old.speaker_sums.items()}
    speakers = old.fact_speakers
    for r in gone_f:
        who = speakers[r]
        if who is not None and who in sums:
            total, n = sums[who]
            sums[who] = (total - old.fact_vectors[[r]][0].astype(np.float64), n - 1)
    start = len(snap.facts) - len(new_facts)
    new_speakers = snap.fact_speakers[start:]
    rows = np.arange(start, len(snap.facts))
    for who in {w for w in new_speakers if w is not None}:
        picked = [int(r) for r, w in zip(rows, new_speakers, strict=True) if w == who]
        add = snap.fact_vectors[picked].sum(axis=0, dtype=np.float64)
        total, n = sums.get(who, (np.zeros(snap.fact_vectors.shape[1], dtype=np.float64), 0))
        sums[who] = (total + add, n + len(picked))
    snap.__dict__["speaker_sums"] = {who: held for who, held in sums.items() if held[1] > 0}
