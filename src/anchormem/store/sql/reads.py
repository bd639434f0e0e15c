"""The SQL store's narrowed reads and counts: the ``WHERE`` of one scope's rows narrowed by id, session or
extraction status, and one statement that counts what a scope holds (``COUNT`` in the database, nothing
loaded). :class:`~anchormem.store.sql.core.SQLStore` runs them; statements use ``?`` placeholders."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from anchormem.store.protocol import Counts
from anchormem.store.sql.dialect import Dialect
from anchormem.store.sql.keys import SCOPE, ScopeKey


def where(
    d: Dialect,
    key: ScopeKey,
    *,
    ids: Sequence[str] | None = None,
    session: str | None = None,
    status: Sequence[str] | None = None,
) -> tuple[str, list[object]]:
    """The condition (after ``WHERE``) and its parameters for the scope's rows, narrowed by each filter given."""
    sql, params = SCOPE, list[object]()
    params.extend(key)
    if ids is not None:
        sql += f" AND id {d.in_ids}"
        params.append(d.id_list(list(dict.fromkeys(ids))))
    if session is not None:
        sql += " AND session = ?"
        params.append(session)
    if status is not None:
        sql += f" AND status {d.in_ids}"
        params.append(d.id_list(list(dict.fromkeys(status))))
    return sql, params


def _count(table: str, what: str = "COUNT(*)") -> str:
    return f"(SELECT {what} FROM {table} WHERE {SCOPE})"


def _tally(status: str) -> str:
    return f"COALESCE(SUM(CASE WHEN status = '{status}' THEN 1 ELSE 0 END), 0)"


COUNTS = (
    f"SELECT {_count('turns')}, {_count('turns', 'COUNT(DISTINCT session)')}, {_count('facts')}, "
    f"{_count('events')}, COUNT(*), {_tally('pending')}, {_tally('failed')}, COALESCE(SUM(ungrounded), 0), "
    f"{_tally('batch')}, {_count('facts', 'COALESCE(SUM(CASE WHEN linked THEN 0 ELSE 1 END), 0)')} "
    f"FROM contexts WHERE {SCOPE}"
)
"""One row: turns, sessions, facts, events, contexts, pending, failed, ungrounded, batch, unlinked facts;
parameters: the key 6 times."""


def counts_params(key: ScopeKey) -> tuple[str, ...]:
    return key * 6


# the columns of a counts row, in order
_COUNTED = ("turns", "sessions", "facts", "events", "contexts", "pending", "failed", "ungrounded", "batch", "unlinked")


def counts(row: Sequence[Any]) -> Counts:
    return Counts(**{name: int(value) for name, value in zip(_COUNTED, row, strict=True)})
