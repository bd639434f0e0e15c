"""How records are stored as rows of the SQL store: the columns of each table that
:class:`~anchormem.store.sql.core.SQLStore` reads and writes, and the codecs between them and the records of
:mod:`anchormem.model` (a decoder's failure is a :class:`~anchormem.errors.StoreError`, see
:func:`~anchormem.store.sql.dialect.decoder`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from anchormem.model import Context, Event, Turn, Usage
from anchormem.store.sql.dialect import decoder
from anchormem.store.sql.keys import SCOPE_COLUMNS
from anchormem.wire.serialize import stored_json

TURN_COLUMNS = "id, session, position, speaker, text, timestamp, image_caption, time_given, metadata"
CONTEXT_COLUMNS = "id, session, position, turn_ids, date, text, offsets"
EVENT_COLUMNS = "id, text, fact_ids, source, supersedes"
EVENT_VECTOR = 5  # the vector's place in a row of ``EVENT_COLUMNS, vector``
# the usage table's columns, and the Usage field each holds ("seconds" is the summed call time)
USAGE = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "seconds",
    "cached_calls",
    "failed_calls",
    "cached_prompt_tokens",
    "cached_completion_tokens",
    "wall_seconds",
)
USAGE_FIELDS = tuple("call_seconds" if c == "seconds" else c for c in USAGE)
# a call's usage of a phase, added to what the scope's phase holds: (*scope key, phase, *USAGE_FIELDS values)
USAGE_UPSERT = (
    f"INSERT INTO usage ({SCOPE_COLUMNS}, phase, {', '.join(USAGE)}) VALUES ({', '.join('?' * (4 + len(USAGE)))}) "
    f"ON CONFLICT ({SCOPE_COLUMNS}, phase) DO UPDATE SET " + ", ".join(f"{c} = usage.{c} + excluded.{c}" for c in USAGE)
)

TURN_INSERT = f"turns ({SCOPE_COLUMNS}, {TURN_COLUMNS}, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
CONTEXT_INSERT = (
    f"contexts ({SCOPE_COLUMNS}, {CONTEXT_COLUMNS}, status, attempts, added_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,'pending',0,?)"
)


def turn_row(t: Turn, now: float) -> tuple[object, ...]:
    meta = json.dumps(t.metadata, ensure_ascii=False, sort_keys=True) if t.metadata is not None else None
    return (t.id, t.session, t.position, t.speaker, t.text, t.timestamp, t.image_caption, t.time_given, meta, now)


@decoder
def turn(row: Sequence[Any]) -> Turn:
    tid, session, position, speaker, text, timestamp, caption, given, meta = row
    metadata = stored_json(meta) if meta is not None else None
    return Turn(tid, session, position, speaker, text, timestamp, caption, given, metadata)


def context_row(c: Context, now: float) -> tuple[object, ...]:
    offsets = json.dumps([list(o) for o in c.offsets]) if c.offsets else None  # NULL: whole messages
    return (c.id, c.session, c.position, json.dumps(list(c.turn_ids)), c.date, c.text, offsets, now)


@decoder
def context(r: Sequence[Any]) -> Context:
    offsets = tuple((int(a), int(b)) for a, b in json.loads(r[6])) if r[6] else ()
    return Context(
        id=r[0], session=r[1], position=r[2], turn_ids=tuple(json.loads(r[3])), date=r[4], text=r[5], offsets=offsets
    )


def contexts(rows: Sequence[Sequence[Any]]) -> list[Context]:
    """:func:`context` of many rows, their turn id and offset lists parsed in one JSON document each (a
    scope's contexts load without parser calls per row); rows that do not parse fail as :func:`context` does."""
    try:
        turns = json.loads("[" + ",".join(r[3] for r in rows) + "]")
        offsets = json.loads("[" + ",".join(r[6] or "null" for r in rows) + "]")
        if len(turns) != len(rows) or len(offsets) != len(rows):
            raise ValueError("the turn id lists do not match the rows")
        return [
            Context(
                id=r[0],
                session=r[1],
                position=r[2],
                turn_ids=tuple(t),
                date=r[4],
                text=r[5],
                offsets=tuple((int(a), int(b)) for a, b in o) if o else (),
            )
            for r, t, o in zip(rows, turns, offsets, strict=True)
        ]
    except (ValueError, TypeError):
        return [context(r) for r in rows]


def supersedes_text(e: Event) -> str | None:
    """The ``supersedes`` column of an event (NULL when it has no links)."""
    return json.dumps([list(link) for link in e.supersedes], ensure_ascii=False) if e.supersedes else None


def _links(text: str | None) -> tuple[tuple[str, str, str], ...]:
    if not text:
        return ()
    return tuple((str(a), str(b), str(k)) for a, b, k in json.loads(text))


@decoder
def event(r: Sequence[Any]) -> Event:
    return Event(id=r[0], text=r[1], fact_ids=tuple(json.loads(r[2])), source=r[3], supersedes=_links(r[4]))


def events(rows: Sequence[Sequence[Any]]) -> list[Event]:
    """:func:`event` of many rows, their fact id lists parsed in one JSON document (a scope's events load
    without a parser call per row); a row that does not parse fails as :func:`event` does."""
    try:
        lists = json.loads("[" + ",".join(r[2] for r in rows) + "]")
        if len(lists) != len(rows) or not all(isinstance(x, list) for x in lists):
            raise ValueError("the fact id lists do not match the rows")
    except (ValueError, TypeError):
        return [event(r) for r in rows]
    return [
        Event(id=r[0], text=r[1], fact_ids=tuple(ids), source=r[3], supersedes=_links(r[4]) if r[4] else ())
        for r, ids in zip(rows, lists, strict=True)
    ]


@decoder
def usage(r: Sequence[Any]) -> Usage:
    return Usage(**dict(zip(USAGE_FIELDS, r, strict=True)))
