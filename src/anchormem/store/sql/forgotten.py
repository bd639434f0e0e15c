"""The ``forgotten`` table: keyed hashes of the turns a delete removed, per scope, so that an add re-sending
them (an agent re-sends recent history all the time) stores nothing of them. It holds no words and no turn
ids, only what :mod:`anchormem.lifecycle.forgotten` computes from them with the store's secret key."""

from __future__ import annotations

from collections.abc import Sequence

from anchormem.store.sql.dialect import Cursor
from anchormem.store.sql.keys import SCOPE, SCOPE_COLUMNS, ScopeKey


def add(cur: Cursor, key: ScopeKey, hashes: Sequence[str]) -> None:
    cur.executemany(
        f"INSERT INTO forgotten ({SCOPE_COLUMNS}, hash) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
        [(*key, h) for h in dict.fromkeys(hashes)],
    )


def drop(cur: Cursor, key: ScopeKey, hashes: Sequence[str]) -> None:
    if hashes:
        d = cur.dialect
        cur.execute(f"DELETE FROM forgotten WHERE {SCOPE} AND hash {d.in_ids}", (*key, d.id_list(list(hashes))))


def query(key: ScopeKey, hashes: Sequence[str], in_ids: str, id_list: object) -> tuple[str, tuple[object, ...]]:
    """The query of which of ``hashes`` are forgotten in the scope."""
    return f"SELECT hash FROM forgotten WHERE {SCOPE} AND hash {in_ids}", (*key, id_list)


def insert_once(cur: Cursor, name: str, value: str) -> str:
    """``meta[name]``: set to ``value`` unless already set (by any process), and returned as stored."""
    cur.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (name, value))
    row = cur.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
    return str(row[0])
