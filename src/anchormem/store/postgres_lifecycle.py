"""The lifecycle half of the PostgreSQL store: deletion, linking state, restored extraction state and
the append-only history (same semantics as :mod:`anchormem.store.sqlite_lifecycle`).

Functions take a cursor inside the caller's transaction and the scope key;
:class:`~anchormem.store.postgres.PostgresStore` delegates to them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from anchormem.model import HistoryEntry, Scope
from anchormem.store.protocol import ExtractionState

SCOPE = "user_id = %s AND agent_id = %s AND run_id = %s"
ScopeKey = tuple[str, str, str]
TABLES = ("turns", "contexts", "facts", "events", "event_facts", "usage")


def _ids(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _delete(cur: Any, table: str, column: str, sk: ScopeKey, ids: Sequence[str]) -> int:
    if not ids:
        return 0
    cur.execute(f"DELETE FROM {table} WHERE {SCOPE} AND {column} = ANY(%s)", (*sk, _ids(ids)))
    return max(0, cur.rowcount)


def delete_records(
    cur: Any,
    sk: ScopeKey,
    turn_ids: Sequence[str],
    context_ids: Sequence[str],
    fact_ids: Sequence[str],
    event_ids: Sequence[str],
) -> dict[str, int]:
    members: set[str] = set()
    if event_ids:
        cur.execute(f"SELECT fact_id FROM event_facts WHERE {SCOPE} AND event_id = ANY(%s)", (*sk, _ids(event_ids)))
        members.update(r[0] for r in cur.fetchall())
    _delete(cur, "event_facts", "event_id", sk, event_ids)
    events = _delete(cur, "events", "id", sk, event_ids)
    _delete(cur, "event_facts", "fact_id", sk, fact_ids)
    facts = _delete(cur, "facts", "id", sk, fact_ids)
    set_linked(cur, sk, sorted(members - set(fact_ids)), False)
    contexts = _delete(cur, "contexts", "id", sk, context_ids)
    turns = _delete(cur, "turns", "id", sk, turn_ids)
    return {"turns": turns, "contexts": contexts, "facts": facts, "events": events}


def delete_scope(cur: Any, sk: ScopeKey) -> dict[str, int]:
    counts = {}
    for table in TABLES:
        cur.execute(f"DELETE FROM {table} WHERE {SCOPE}", sk)
        counts[table] = max(0, cur.rowcount)
    cur.execute(f"DELETE FROM scopes WHERE {SCOPE} RETURNING version", sk)
    row = cur.fetchone()
    if row is not None:  # a scope made again later starts above any version it had
        cur.execute(
            "INSERT INTO meta VALUES ('version_floor', %s) ON CONFLICT (key) DO UPDATE SET "
            "value = GREATEST(meta.value::BIGINT, excluded.value::BIGINT)::TEXT",
            (str(int(row[0])),),
        )
    return {k: counts[k] for k in ("turns", "contexts", "facts", "events")}


def set_linked(cur: Any, sk: ScopeKey, fact_ids: Sequence[str], linked: bool) -> None:
    if fact_ids:
        cur.execute(f"UPDATE facts SET linked = %s WHERE {SCOPE} AND id = ANY(%s)", (linked, *sk, _ids(fact_ids)))


def restore_states(cur: Any, sk: ScopeKey, states: Sequence[ExtractionState]) -> None:
    if states:
        cur.executemany(
            f"UPDATE contexts SET status = %s, error = %s, attempts = %s WHERE {SCOPE} AND id = %s",
            [(s.status, s.error, s.attempts, *sk, s.context_id) for s in states],
        )


def append_history(
    cur: Any, scope: Scope, sk: ScopeKey, op: str, detail: Mapping[str, Any], timestamp: float | None
) -> HistoryEntry:
    when = time.time() if timestamp is None else float(timestamp)
    payload = json.dumps(dict(detail), ensure_ascii=False, sort_keys=True)
    cur.execute(
        "INSERT INTO history (timestamp, user_id, agent_id, run_id, op, detail) VALUES (%s,%s,%s,%s,%s,%s) "
        "RETURNING seq",
        (when, *sk, op, payload),
    )
    row = cur.fetchone()
    return HistoryEntry(seq=int(row[0]), timestamp=when, op=op, scope=scope, detail=json.loads(payload))
