"""The first step of an add: its turns placed after the stored ones, and the touched sessions cut into windows.

Only the windows of the sessions touched (or left without windows by a crash or a delete) are re-cut; a window
that a session's new turns replaced is superseded (deleted with its facts and events). An add reads only the
touched sessions' turns and windows; sessions left without windows are looked for in every turn only by a
rebuild (which a delete and an update run) and by an add that finds the scope's last turn in no window: an add
stopped between storing its turns and their windows leaves exactly that, so the next add of any session
finishes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from anchormem.config import ChunkSettings
from anchormem.ingest.chunk import chunk_session
from anchormem.model import Context, IngestReport, Scope, Turn
from anchormem.store.protocol import Store


@dataclass
class Known:
    """Rows one run has read or cut already, by id, passed on to its next steps instead of read again."""

    turns: dict[str, Turn]
    contexts: dict[str, Context] = field(default_factory=dict)


def placed(store: Store, scope: Scope, turns: Sequence[Turn]) -> tuple[list[Turn], dict[str, list[Turn]]]:
    """``turns`` without those already stored, and the stored turns of their sessions (read here); new
    turns of a session that holds turns are placed after them (positions continue after the highest
    stored one, in the order given)."""
    by_session: dict[str, list[Turn]] = {}
    for t in turns:
        by_session.setdefault(t.session, []).append(t)
    out: list[Turn] = []
    stored: dict[str, list[Turn]] = {}
    for session, given in by_session.items():
        held = stored[session] = store.turns(scope, session)
        ids = {t.id for t in held}
        new = [t for t in given if t.id not in ids]
        if held:
            start = max(t.position for t in held) + 1
            new = [replace(t, position=start + i) for i, t in enumerate(new)]
        out.extend(new)
    return out, stored


def rechunk(
    store: Store,
    scope: Scope,
    sessions: Sequence[str],
    report: IngestReport,
    chunking: ChunkSettings,
    held: dict[str, list[Turn]] | None = None,
    last: Turn | None = None,
) -> Known:
    """Cut the given sessions (and any whose turns no window covers) into windows; store the new
    ones, then supersede the stored windows of those sessions that the new cut no longer has.

    ``held``: the sessions' stored turns, as an add read and wrote them (``last``: the scope's last turn
    before the add); only those sessions' windows are read, unless an earlier run stopped before cutting
    its turns (see :func:`_read_sessions`). Without ``held`` (a rebuild) every turn and window is read.
    Returns the rows read and cut, for the next steps."""
    read = _read_sessions(store, scope, held, last) if held is not None else None
    turns, stored = read if read is not None else _read_all(store, scope, sessions)
    known = Known({t.id: t for ts in turns.values() for t in ts})
    if not turns:
        return known
    fresh: list[Context] = []
    for session_turns in turns.values():
        fresh.extend(chunk_session(scope, session_turns, chunking))
    report.contexts_added += len(store.add_contexts(scope, fresh))
    known.contexts.update((c.id, c) for c in fresh)
    stale = [c.id for windows in stored.values() for c in windows if c.id not in known.contexts]
    if stale:  # the store deletes their facts and the events on those with them
        report.contexts_superseded += store.delete_records(scope, context_ids=stale)["contexts"]
    return known


def _read_sessions(
    store: Store, scope: Scope, held: dict[str, list[Turn]], last: Turn | None
) -> tuple[dict[str, list[Turn]], dict[str, list[Context]]] | None:
    """The turns and stored windows of the sessions an add touched, or None when the scope's last turn
    before the add is in no window: an earlier add stopped between storing its turns and their windows
    (its turns are the last stored), so every session is checked (:func:`_read_all`)."""
    stored = {session: store.contexts(scope, session=session) for session in held}
    if last is not None:
        windows = stored.get(last.session)
        if windows is None:
            windows = store.contexts(scope, session=last.session)
        if not any(last.id in c.turn_ids for c in windows):
            return None
    turns: dict[str, list[Turn]] = {}
    for session, session_turns in held.items():
        ids = {t.id for t in session_turns}
        if any(tid not in ids for c in stored[session] for tid in c.turn_ids):
            session_turns = store.turns(scope, session)  # another process added to it meanwhile
        turns[session] = session_turns
    return turns, stored


def _read_all(
    store: Store, scope: Scope, sessions: Sequence[str]
) -> tuple[dict[str, list[Turn]], dict[str, list[Context]]]:
    """The turns and stored windows of ``sessions`` and of every session whose turns no window covers."""
    every = store.turns(scope)
    windows = store.contexts(scope)
    covered = {tid for c in windows for tid in c.turn_ids}
    todo = dict.fromkeys([*sessions, *(t.session for t in every if t.id not in covered)])
    turns: dict[str, list[Turn]] = {session: [] for session in todo}
    for t in every:
        if t.session in turns:
            turns[t.session].append(t)
    stored: dict[str, list[Context]] = {session: [] for session in todo}
    for c in windows:
        if c.session in stored:
            stored[c.session].append(c)
    return turns, stored
