"""The lifecycle half of the SQL store: deletion, linking state and the append-only history.

Functions take a :class:`~anchormem.store.sql.dialect.Cursor` inside the caller's transaction and the
scope key; :class:`~anchormem.store.sql.core.SQLStore` delegates to them. Statements use ``?`` placeholders.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from anchormem.model import HistoryEntry, Scope
from anchormem.store.sql.dialect import Cursor, decoder
from anchormem.store.sql.keys import SCOPE, ScopeKey, sk

TABLES = ("turns", "contexts", "facts", "events", "event_facts", "usage", "changes")


def each_id(cur: Cursor, sql: str, params: Sequence[object], ids: Sequence[str]) -> int:
    """Run ``sql`` (ending in the column to match) for all ``ids`` at once; returns the rows changed."""
    if not ids:
        return 0
    d = cur.dialect
    return max(0, cur.execute(f"{sql} {d.in_ids}", (*params, d.id_list(list(dict.fromkeys(ids))))).rowcount)


def _delete(cur: Cursor, table: str, column: str, key: ScopeKey, ids: Sequence[str]) -> int:
    return each_id(cur, f"DELETE FROM {table} WHERE {SCOPE} AND {column}", key, ids)


def delete_records(
    cur: Cursor,
    key: ScopeKey,
    turn_ids: Sequence[str],
    context_ids: Sequence[str],
    fact_ids: Sequence[str],
    event_ids: Sequence[str],
) -> dict[str, int]:
    members: set[str] = set()
    if event_ids:
        d = cur.dialect
        sql = f"SELECT fact_id FROM event_facts WHERE {SCOPE} AND event_id {d.in_ids}"
        members.update(r[0] for r in cur.execute(sql, (*key, d.id_list(list(event_ids)))).fetchall())
    _delete(cur, "event_facts", "event_id", key, event_ids)
    events = _delete(cur, "events", "id", key, event_ids)
    _delete(cur, "event_facts", "fact_id", key, fact_ids)
    facts = _delete(cur, "facts", "id", key, fact_ids)
    set_linked(cur, key, sorted(members - set(fact_ids)), False)  # re-linked around the survivors
    contexts = _delete(cur, "contexts", "id", key, context_ids)
    turns = _delete(cur, "turns", "id", key, turn_ids)
    return {"turns": turns, "contexts": contexts, "facts": facts, "events": events}


def provisional_facts(cur: Cursor, key: ScopeKey, context_ids: Sequence[str]) -> list[str]:
    """Delete the provisional anchors of these contexts (``source = 'provisional'``, held while their batch
    answer was awaited; no event is built on them); returns their ids."""
    d = cur.dialect
    sql = f"SELECT id FROM facts WHERE {SCOPE} AND source = 'provisional' AND context_id {d.in_ids}"
    ids = [r[0] for r in cur.execute(sql, (*key, d.id_list(list(dict.fromkeys(context_ids))))).fetchall()]
    _delete(cur, "facts", "id", key, ids)
    return ids


def delete_scope(cur: Cursor, key: ScopeKey) -> dict[str, int]:
    counts = {t: max(0, cur.execute(f"DELETE FROM {t} WHERE {SCOPE}", key).rowcount) for t in TABLES}
    d = cur.dialect
    row = cur.execute(f"SELECT version FROM scopes WHERE {SCOPE}{d.for_update}", key).fetchone()
    if row is not None:  # a scope made again later starts above any version it had
        cur.execute(
            "INSERT INTO meta VALUES ('version_floor', ?) ON CONFLICT (key) DO UPDATE SET value = "
            f"CAST({d.greatest}(CAST(meta.value AS BIGINT), CAST(excluded.value AS BIGINT)) AS TEXT)",
            (str(int(row[0])),),
        )
        cur.execute(f"DELETE FROM scopes WHERE {SCOPE}", key)
    return {k: counts[k] for k in ("turns", "contexts", "facts", "events")}


def set_linked(cur: Cursor, key: ScopeKey, fact_ids: Sequence[str], linked: bool) -> None:
    each_id(cur, f"UPDATE facts SET linked = ? WHERE {SCOPE} AND id", (bool(linked), *key), fact_ids)


def append_history(
    cur: Cursor, scope: Scope, op: str, detail: Mapping[str, Any], timestamp: float | None
) -> HistoryEntry:
    when = time.time() if timestamp is None else float(timestamp)
    payload = json.dumps(dict(detail), ensure_ascii=False, sort_keys=True)
    cur.execute(
        "INSERT INTO history (timestamp, user_id, agent_id, run_id, op, detail) VALUES (?,?,?,?,?,?)"
        + cur.dialect.returning_seq,
        (when, *sk(scope), op, payload),
    )
    seq = cur.dialect.inserted_seq(cur.raw)
    return HistoryEntry(seq=seq, timestamp=when, op=op, scope=scope, detail=json.loads(payload))


def history_query(scope: Scope, limit: int | None) -> tuple[str, list[object]]:
    """The newest ``limit`` history rows of a user, narrowed by agent/run when the scope names them."""
    sql = "SELECT seq, timestamp, user_id, agent_id, run_id, op, detail FROM history WHERE user_id = ?"
    params: list[object] = [scope.user_id]
    for column, value in (("agent_id", scope.agent_id), ("run_id", scope.run_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            params.append(value)
    sql += " ORDER BY seq DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(max(0, int(limit)))
    return sql, params


@decoder
def history_entries(rows: Sequence[Sequence[Any]]) -> list[HistoryEntry]:
    """Rows of :func:`history_query` as entries, oldest first."""
    return [
        HistoryEntry(
            seq=int(r[0]),
            timestamp=float(r[1]),
            op=r[5],
            scope=Scope(r[2], r[3] or None, r[4] or None),
            detail=json.loads(r[6]),
        )
        for r in reversed(rows)
    ]
