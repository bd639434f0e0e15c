"""Search filters: metadata equality, session and a time range, as a restriction of a snapshot.

A search with filters looks only at the contexts that pass them, so every recipe honours them the same
way. A context (a window of several turns) passes when at least one of its turns matches every filter:

- ``metadata``: each given key is in the turn's ``metadata`` with an equal JSON value (a number equals
  the same number written as an int or a float; ``true`` is not ``1``). A key no turn has matches
  nothing (an empty result, not an error).
- ``session``: the turn's session label is this one.
- ``since`` / ``until``: the moment the turn's time names (:func:`anchormem.text.times.instant`) is
  at or after ``since`` and at or before ``until`` (both inclusive; ISO 8601, Unix seconds or
  milliseconds, a ``datetime`` or a date spelling the library reads; aware times compare in UTC). A
  turn whose time is unknown or unreadable never matches a time range.

It sits above :mod:`anchormem.index` and :mod:`anchormem.ingest` (it reads message times as ingest
does), so neither imports it; :class:`~anchormem.memory.Memory` applies it before retrieval.

Facts of a passing context stay search keys. An event stays only when every one of its source facts
belongs to a passing context, so no returned text speaks of a message the filters leave out.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from anchormem.errors import InputError
from anchormem.index.snapshot import ScopeSnapshot, TurnKey
from anchormem.index.store_rows import take_rows
from anchormem.model import Turn
from anchormem.text.times import bound, instant
from anchormem.wire.validation import check_json

KEPT_RESTRICTIONS = 16  # filtered snapshots kept per snapshot, for repeated searches with the same filters
TimeBound = str | int | float | datetime


@dataclass(frozen=True)
class SearchFilters:
    """What a search is restricted to (see the module docstring); no field set means no restriction."""

    metadata: tuple[tuple[str, Any], ...] = ()  # (key, canonical value) pairs, sorted by key
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def __bool__(self) -> bool:
        return bool(self.metadata) or self.session is not None or self.since is not None or self.until is not None

    @property
    def on_turns(self) -> bool:
        """Whether a turn's metadata or time is needed (not only its context's session)."""
        return bool(self.metadata) or self.since is not None or self.until is not None

    def metadata_matches(self, turn: Turn | None) -> bool:
        """Whether ``turn``'s metadata holds every pair of ``metadata``."""
        if turn is None:
            return False
        given = turn.metadata or {}
        return all(key in given and _canonical(given[key], key, strict=False) == value for key, value in self.metadata)


def make_filters(
    filters: Mapping[str, Any] | None = None,
    *,
    session: str | None = None,
    since: TimeBound | None = None,
    until: TimeBound | None = None,
) -> SearchFilters:
    """Checked filters: ``filters`` is metadata equality (``{"topic": "work"}``; every pair must match),
    ``session`` a session label, ``since``/``until`` the time range. Raises :class:`InputError`
    naming the field for a value of the wrong type."""
    pairs: list[tuple[str, Any]] = []
    if filters is not None:
        if not isinstance(filters, Mapping):
            raise InputError(f"filters must be an object of metadata key -> value, got {type(filters).__name__}")
        for key, value in filters.items():
            if not isinstance(key, str) or not key:
                raise InputError(f"filters: every key must be a non-empty string, got {key!r}")
            check_json(value, f"filters[{key[:40]!r}]", "search")  # bounded depth before any recursion below
            pairs.append((key, _canonical(value, f"filters[{key!r}]", strict=True)))
    if session is not None and (not isinstance(session, str) or not session):
        raise InputError(f"session must be a non-empty string, got {type(session).__name__}")
    low = _bound(since, "since")
    high = _bound(until, "until")
    if low is not None and high is not None and low > high:
        raise InputError(f"since ({low.isoformat()}) is after until ({high.isoformat()})")
    return SearchFilters(metadata=tuple(sorted(pairs)), session=session, since=low, until=high)


def _bound(value: object, field: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float | datetime):
        raise InputError(f"{field} must be an ISO 8601 time, Unix seconds or a datetime, got {type(value).__name__}")
    return bound(value, field)


def _canonical(value: Any, where: str, *, strict: bool) -> Any:
    """A hashable form of a JSON value in which equal values are equal (1 == 1.0, True != 1). With
    ``strict``, anything that is not a JSON value raises :class:`InputError` naming ``where``;
    otherwise (a stored value) it is compared by its text."""
    if value is None or isinstance(value, str):
        return ("v", value)
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            if strict:
                raise InputError(f"{where} must be a JSON value, got {value!r}")
            return ("?", repr(value))
        return ("n", value)
    if isinstance(value, list | tuple):
        return ("l", tuple(_canonical(v, f"{where}[{i}]", strict=strict) for i, v in enumerate(value)))
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return ("d", tuple(sorted((k, _canonical(v, f"{where}[{k!r}]", strict=strict)) for k, v in value.items())))
    if strict:
        raise InputError(f"{where} must be a JSON value (text, number, true/false, null, list or object)")
    return ("?", repr(value))


_EPOCH = datetime(1970, 1, 1)


@dataclass(frozen=True)
class _TurnTable:
    """A snapshot's turns laid out for filtering: each distinct turn once (``turns``, its moment in
    ``seconds`` since the epoch, NaN when unknown) and the (context row, turn) pairs that join them."""

    turns: list[Turn | None]
    seconds: npt.NDArray[np.float64]
    ctx_rows: npt.NDArray[np.int64]
    turn_rows: npt.NDArray[np.int64]


_TABLES: weakref.WeakKeyDictionary[ScopeSnapshot, _TurnTable] = weakref.WeakKeyDictionary()


def _table(snapshot: ScopeSnapshot) -> _TurnTable:
    """The snapshot's :class:`_TurnTable` (made once per snapshot, on its first filtered search)."""
    cached = _TABLES.get(snapshot)
    if cached is not None:
        return cached
    stored = snapshot.turns
    number: dict[TurnKey, int] = {}
    turns: list[Turn | None] = []
    ctx_rows: list[int] = []
    turn_rows: list[int] = []
    for row, context in enumerate(snapshot.contexts):
        scope = snapshot.scope_of(row)
        for tid in context.turn_ids:
            key = (scope, tid)
            at = number.get(key)
            if at is None:
                at = number[key] = len(turns)
                turns.append(stored.get(key))
            ctx_rows.append(row)
            turn_rows.append(at)
    moments = [instant(t.timestamp, t.time_given) if t is not None else None for t in turns]
    seconds = np.asarray([_seconds(m) if m is not None else np.nan for m in moments], dtype=np.float64)
    made = _TurnTable(turns, seconds, np.asarray(ctx_rows, dtype=np.int64), np.asarray(turn_rows, dtype=np.int64))
    _TABLES[snapshot] = made
    return made


def _seconds(moment: datetime) -> float:
    return (moment - _EPOCH).total_seconds()


def passing_rows(snapshot: ScopeSnapshot, filters: SearchFilters) -> list[int]:
    """The rows of the contexts that pass ``filters``: one of their turns matches them all."""
    n = len(snapshot.contexts)
    in_session = np.ones(n, dtype=bool)
    if filters.session is not None:
        in_session = np.asarray([c.session == filters.session for c in snapshot.contexts], dtype=bool)
    if not filters.on_turns:
        return [int(r) for r in np.flatnonzero(in_session)]
    table = _table(snapshot)
    ok = np.asarray([t is not None for t in table.turns], dtype=bool)
    if filters.since is not None or filters.until is not None:
        with np.errstate(invalid="ignore"):  # NaN (unknown time) compares False
            if filters.since is not None:
                ok &= table.seconds >= _seconds(filters.since)
            if filters.until is not None:
                ok &= table.seconds <= _seconds(filters.until)
    if filters.metadata:
        for i in np.flatnonzero(ok).tolist():
            ok[i] = filters.metadata_matches(table.turns[i])
    passing = np.zeros(n, dtype=bool)
    hit = ok[table.turn_rows]
    passing[table.ctx_rows[hit]] = True
    return [int(r) for r in np.flatnonzero(passing & in_session)]


def restrict(snapshot: ScopeSnapshot, filters: SearchFilters) -> ScopeSnapshot:
    """The part of ``snapshot`` that passes ``filters`` (the snapshot itself when all of it passes).
    Kept on the snapshot for the next search with the same filters (at most ``KEPT_RESTRICTIONS``)."""
    if not filters:
        return snapshot
    cached = snapshot.restricted.get(filters)
    if cached is not None:
        return cached
    rows = passing_rows(snapshot, filters)
    out = snapshot if len(rows) == len(snapshot.contexts) else _subset(snapshot, rows)
    while len(snapshot.restricted) >= KEPT_RESTRICTIONS:
        snapshot.restricted.pop(next(iter(snapshot.restricted)), None)
    snapshot.restricted[filters] = out
    return out


def _subset(snapshot: ScopeSnapshot, rows: list[int]) -> ScopeSnapshot:
    """A snapshot of the contexts at ``rows``, their facts, and the events all of whose facts are kept."""
    kept = set(rows)
    fact_rows = [i for i, row in enumerate(snapshot.fact_context.tolist()) if row in kept]
    kept_facts = set(fact_rows)
    event_rows = [j for j, facts in enumerate(snapshot.event_facts) if facts and all(f in kept_facts for f in facts)]
    parent = snapshot

    def load_turns() -> list[tuple[Any, Turn]]:
        return [(key[0], turn) for key, turn in parent.turns.items()]

    events = [snapshot.events[j] for j in event_rows]
    out = ScopeSnapshot(
        contexts=[snapshot.contexts[r] for r in rows],
        facts=[snapshot.facts[i] for i in fact_rows],
        fact_vectors=take_rows(snapshot.fact_vectors, fact_rows),
        events=events,
        event_vectors=snapshot.event_vectors[event_rows] if events else snapshot.event_vectors[:0],
        embed_texts=snapshot.embed_texts,
        window_chars=snapshot.window_chars,
        context_scopes=tuple(snapshot.context_scopes[r] for r in rows) if snapshot.context_scopes else (),
        load_turns=load_turns,
    )
    _derive_indexes(snapshot, out, rows, fact_rows)
    return out


def _derive_indexes(parent: ScopeSnapshot, part: ScopeSnapshot, rows: list[int], fact_rows: list[int]) -> None:
    """Give ``part`` (the contexts of ``parent`` at ``rows``, its facts at ``fact_rows``) the parent's
    indexes, sliced, instead of building them anew: BM25 keeps the whole memory's weights (a context
    scores as in an unfiltered search), a window's share and its turns are the same, and turns keep the
    parent's keys. Each value is what the ``cached_property`` of that name would hold, so it is stored
    under its name."""
    index = np.asarray(rows, dtype=np.int64)
    part.__dict__["context_bm25"] = parent.context_bm25.subset(rows)
    if "context_subwords" in parent.__dict__ or parent.other_language_share > 0.0:  # the memory's weights too
        part.__dict__["context_subwords"] = parent.context_subwords.subset(rows)
    if "fact_bm25" in parent.__dict__:
        part.__dict__["fact_bm25"] = parent.fact_bm25.subset(fact_rows)
    part.__dict__["context_share"] = [parent.context_share[r] for r in rows]
    part.__dict__["context_turns"] = [parent.context_turns[r] for r in rows]
    ctx_rows, turn_rows, n_turns = parent.turn_segments
    renumber = np.full(len(parent.contexts), -1, dtype=np.int64)
    renumber[index] = np.arange(index.size, dtype=np.int64)
    kept = renumber[ctx_rows] >= 0
    part.__dict__["turn_segments"] = (renumber[ctx_rows[kept]], turn_rows[kept], n_turns)
