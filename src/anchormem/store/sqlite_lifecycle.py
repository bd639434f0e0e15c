"""The lifecycle half of the SQLite store: deletion, linking state, restored extraction
state, the append-only history and scrubbing of freed bytes.

Functions take the open connection (inside the caller's transaction where they write)
and the scope key; :class:`~anchormem.store.sqlite.SQLiteStore` delegates to them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any

from anchormem.model import HistoryEntry, Scope
from anchormem.store.protocol import ExtractionState

SCOPE = "user_id = ? AND agent_id = ? AND run_id = ?"
ScopeKey = tuple[str, str, str]
_TABLES = ("turns", "contexts", "facts", "events", "event_facts", "usage")


def _each(db: sqlite3.Connection, sql: str, sk: ScopeKey, ids: Sequence[str]) -> int:
    if not ids:
        return 0
    cur = db.executemany(sql, [(*sk, i) for i in dict.fromkeys(ids)])
    return max(0, cur.rowcount)


def delete_records(
    db: sqlite3.Connection,
    sk: ScopeKey,
    turn_ids: Sequence[str],
    context_ids: Sequence[str],
    fact_ids: Sequence[str],
    event_ids: Sequence[str],
) -> dict[str, int]:
    members: set[str] = set()
    for eid in dict.fromkeys(event_ids):
        members.update(
            r[0] for r in db.execute(f"SELECT fact_id FROM event_facts WHERE {SCOPE} AND event_id = ?", (*sk, eid))
        )
    _each(db, f"DELETE FROM event_facts WHERE {SCOPE} AND event_id = ?", sk, event_ids)
    events = _each(db, f"DELETE FROM events WHERE {SCOPE} AND id = ?", sk, event_ids)
    _each(db, f"DELETE FROM event_facts WHERE {SCOPE} AND fact_id = ?", sk, fact_ids)
    facts = _each(db, f"DELETE FROM facts WHERE {SCOPE} AND id = ?", sk, fact_ids)
    _each(db, f"UPDATE facts SET linked = 0 WHERE {SCOPE} AND id = ?", sk, sorted(members - set(fact_ids)))
    contexts = _each(db, f"DELETE FROM contexts WHERE {SCOPE} AND id = ?", sk, context_ids)
    turns = _each(db, f"DELETE FROM turns WHERE {SCOPE} AND id = ?", sk, turn_ids)
    return {"turns": turns, "contexts": contexts, "facts": facts, "events": events}


def delete_scope(db: sqlite3.Connection, sk: ScopeKey) -> dict[str, int]:
    counts = {}
    for table in _TABLES:
        counts[table] = max(0, db.execute(f"DELETE FROM {table} WHERE {SCOPE}", sk).rowcount)
    row = db.execute(f"SELECT version FROM scopes WHERE {SCOPE}", sk).fetchone()
    if row is not None:
        floor = db.execute("SELECT value FROM meta WHERE key = 'version_floor'").fetchone()
        value = max(int(row[0]), int(floor[0]) if floor else 0)
        db.execute(
            "INSERT INTO meta VALUES ('version_floor', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(value),),
        )
        db.execute(f"DELETE FROM scopes WHERE {SCOPE}", sk)
    return {k: counts[k] for k in ("turns", "contexts", "facts", "events")}


def set_linked(db: sqlite3.Connection, sk: ScopeKey, fact_ids: Sequence[str], linked: bool) -> None:
    _each(db, f"UPDATE facts SET linked = {1 if linked else 0} WHERE {SCOPE} AND id = ?", sk, fact_ids)


def restore_states(db: sqlite3.Connection, sk: ScopeKey, states: Sequence[ExtractionState]) -> None:
    db.executemany(
        f"UPDATE contexts SET status = ?, error = ?, attempts = ? WHERE {SCOPE} AND id = ?",
        [(s.status, s.error, s.attempts, *sk, s.context_id) for s in states],
    )


def append_history(
    db: sqlite3.Connection, scope: Scope, sk: ScopeKey, op: str, detail: Mapping[str, Any], timestamp: float | None
) -> HistoryEntry:
    when = time.time() if timestamp is None else float(timestamp)
    payload = json.dumps(dict(detail), ensure_ascii=False, sort_keys=True)
    cur = db.execute(
        "INSERT INTO history (timestamp, user_id, agent_id, run_id, op, detail) VALUES (?,?,?,?,?,?)",
        (when, *sk, op, payload),
    )
    return HistoryEntry(seq=int(cur.lastrowid or 0), timestamp=when, op=op, scope=scope, detail=json.loads(payload))


def checkpoint(db: sqlite3.Connection, attempts: int = 20) -> bool:
    """Checkpoint the WAL into the database and truncate it to zero bytes; False when readers kept it busy."""
    for attempt in range(attempts):
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy is None or not busy[0]:
            return True
        time.sleep(min(0.05 * (attempt + 1), 0.5))
    return False
