"""The server store: PostgreSQL with pgvector, selected by a ``postgresql://`` URL.

Same schema and semantics as :class:`~anchormem.store.sqlite.SQLiteStore` (idempotent inserts, a
version counter per scope, facts and extraction status saved in one transaction, migrations on open).
Every row carries its scope, and every per-scope read is an index range scan on (scope, seq), so one
user's memory loads in reading order without touching the others'. Vectors are pgvector ``vector``
columns (float32); an HNSW index (inner product) per vector dimension serves :meth:`search_facts`,
a direct top-k within one scope. psycopg errors are translated into :class:`StoreError` here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from anchormem.errors import StoreError
from anchormem.model import Context, Event, Fact, HistoryEntry, Scope, Turn, Usage
from anchormem.store import postgres_lifecycle as life
from anchormem.store.pg_migrations import hnsw_index_name, hnsw_index_sql
from anchormem.store.postgres_conn import PgConnection
from anchormem.store.protocol import Extraction, ExtractionState, Matrix
from anchormem.store.sql_common import EVENT_COLUMNS, event_from_row, history_entries, history_query

_SCOPE = "user_id = %s AND agent_id = %s AND run_id = %s"
_SCOPE_COLS = "user_id, agent_id, run_id"


def _sk(scope: Scope) -> tuple[str, str, str]:
    return (scope.user_id, scope.agent_id or "", scope.run_id or "")


def _vec(row: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(row, dtype=np.float32)


def _matrix(vectors: Sequence[Any], dim: int) -> Matrix:
    if not vectors:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([v.to_numpy() for v in vectors]).astype(np.float32, copy=False)


class PostgresStore:
    """A :class:`~anchormem.store.protocol.Store` in a PostgreSQL database with the pgvector extension.

    ``vector_index``: keep an HNSW index on the facts' vectors (created for a dimension when its first
    vectors arrive). Bulk loads are faster without it: open with ``vector_index=False``, load, then call
    :meth:`build_vector_index`.
    """

    def __init__(self, url: str, *, vector_index: bool = True, connect_timeout: float = 10.0) -> None:
        self.url = url
        self.vector_index = vector_index
        self._db = PgConnection(url, connect_timeout=connect_timeout)
        self._indexed: set[int] = set()

    @property
    def path(self) -> str:
        """Where the store is (the URL without its password)."""
        return self._db.where

    def close(self) -> None:
        self._db.close()

    def migrations(self) -> list[str]:
        return self._db.migrations()

    def _bump(self, cur: Any, scope: Scope) -> None:
        cur.execute(
            f"INSERT INTO scopes ({_SCOPE_COLS}, version) VALUES (%s, %s, %s, 1 + COALESCE("
            "(SELECT value::BIGINT FROM meta WHERE key = 'version_floor'), 0)) "
            f"ON CONFLICT ({_SCOPE_COLS}) DO UPDATE SET version = scopes.version + 1",
            _sk(scope),
        )

    # -- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._db.query("SELECT value FROM meta WHERE key = %s", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._db.tx() as cur:
            cur.execute(
                "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value)
            )

    def version(self, scope: Scope) -> int:
        rows = self._db.query(f"SELECT version FROM scopes WHERE {_SCOPE}", _sk(scope))
        return int(rows[0][0]) if rows else 0

    def scopes(self) -> list[Scope]:
        rows = self._db.query(f"SELECT {_SCOPE_COLS} FROM scopes ORDER BY 1, 2, 3")
        return [Scope(u, a or None, r or None) for u, a, r in rows]

    # -- turns and contexts ------------------------------------------------------------------------------

    def add_turns(self, scope: Scope, turns: Sequence[Turn]) -> list[Turn]:
        added: list[Turn] = []
        now = time.time()
        with self._db.tx() as cur:
            for t in turns:
                cur.execute(
                    f"INSERT INTO turns ({_SCOPE_COLS}, id, session, position, speaker, text, timestamp, "
                    "image_caption, added_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                    (*_sk(scope), t.id, t.session, t.position, t.speaker, t.text, t.timestamp, t.image_caption, now),
                )
                if cur.rowcount:
                    added.append(t)
            if added:
                self._bump(cur, scope)
        return added

    def turns(self, scope: Scope, session: str | None = None) -> list[Turn]:
        sql = f"SELECT id, session, position, speaker, text, timestamp, image_caption FROM turns WHERE {_SCOPE}"
        params: list[object] = list(_sk(scope))
        if session is not None:
            sql += " AND session = %s"
            params.append(session)
        return [Turn(*r) for r in self._db.query(sql + " ORDER BY seq", params)]

    def add_contexts(self, scope: Scope, contexts: Sequence[Context]) -> list[Context]:
        added: list[Context] = []
        now = time.time()
        with self._db.tx() as cur:
            for c in contexts:
                cur.execute(
                    f"INSERT INTO contexts ({_SCOPE_COLS}, id, session, position, turn_ids, date, text, status, "
                    "attempts, added_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,'pending',0,%s) ON CONFLICT DO NOTHING",
                    (*_sk(scope), c.id, c.session, c.position, json.dumps(list(c.turn_ids)), c.date, c.text, now),
                )
                if cur.rowcount:
                    added.append(c)
            if added:
                self._bump(cur, scope)
        return added

    def contexts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Context]:
        sql = f"SELECT id, session, position, turn_ids, date, text FROM contexts WHERE {_SCOPE}"
        params: list[object] = list(_sk(scope))
        if ids is not None:
            sql += " AND id = ANY(%s)"
            params.append(list(ids))
        return [
            Context(id=r[0], session=r[1], position=r[2], turn_ids=tuple(json.loads(r[3])), date=r[4], text=r[5])
            for r in self._db.query(sql + " ORDER BY seq", params)
        ]

    def extraction_states(self, scope: Scope) -> list[ExtractionState]:
        rows = self._db.query(
            f"SELECT id, status, error, attempts FROM contexts WHERE {_SCOPE} ORDER BY seq", _sk(scope)
        )
        return [ExtractionState(*r) for r in rows]

    # -- facts ---------------------------------------------------------------------------------------------

    def save_extractions(self, scope: Scope, extractions: Sequence[Extraction]) -> int:
        """Store each context's facts and mark the context done, all in one transaction."""
        rows: list[tuple[object, ...]] = []
        now = time.time()
        dims: set[int] = set()
        for ex in extractions:
            if len(ex.facts) != len(ex.vectors):
                raise StoreError(f"{len(ex.facts)} facts but {len(ex.vectors)} vectors for {ex.context_id}")
            for fact, vec in zip(ex.facts, ex.vectors, strict=True):
                rows.append((*_sk(scope), fact.id, fact.context_id, fact.text, fact.source, _vec(vec), now))
                dims.add(int(np.shape(vec)[0]))
        new_dims = sorted(dims - self._indexed) if self.vector_index else []
        with self._db.tx() as cur:
            for dim in new_dims:
                cur.execute(hnsw_index_sql(dim))
            added = 0
            if rows:
                cur.executemany(
                    f"INSERT INTO facts ({_SCOPE_COLS}, id, context_id, text, source, vector, added_at, linked) "
                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%b,%s,FALSE) ON CONFLICT DO NOTHING",
                    rows,
                )
                added = max(cur.rowcount, 0)
            done = [(*_sk(scope), ex.context_id) for ex in extractions]
            if done:
                cur.executemany(
                    f"UPDATE contexts SET status = 'done', error = NULL, attempts = attempts + 1 "
                    f"WHERE {_SCOPE} AND id = %s",
                    done,
                )
            self._bump(cur, scope)
        self._indexed.update(new_dims)
        return added

    def mark_failed(self, scope: Scope, context_id: str, error: str) -> None:
        with self._db.tx() as cur:
            cur.execute(
                f"UPDATE contexts SET status = 'failed', error = %s, attempts = attempts + 1 "
                f"WHERE {_SCOPE} AND id = %s",
                (error[:2000], *_sk(scope), context_id),
            )

    def facts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Fact]:
        sql = f"SELECT id, context_id, text, source FROM facts WHERE {_SCOPE}"
        params: list[object] = list(_sk(scope))
        if ids is not None:
            sql += " AND id = ANY(%s)"
            params.append(list(ids))
        return [Fact(*r) for r in self._db.query(sql + " ORDER BY seq", params)]

    def fact_matrix(self, scope: Scope) -> tuple[list[Fact], Matrix]:
        rows = self._db.query(
            f"SELECT id, context_id, text, source, vector FROM facts WHERE {_SCOPE} ORDER BY seq",
            _sk(scope),
            binary=True,
        )
        return [Fact(*r[:4]) for r in rows], _matrix([r[4] for r in rows], self._dim())

    def search_facts(
        self, scope: Scope, vector: np.ndarray, k: int = 10, *, exact: bool = False, ef_search: int = 100
    ) -> list[tuple[Fact, float]]:
        """The ``k`` facts of ``scope`` with the highest inner product with ``vector``, best first.

        By default the query is written so that the HNSW index can serve it (pgvector iterative scans
        keep filtering by scope from starving the result); the planner still picks the (scope, seq)
        index with an exact sort when the scope is small, which is both exact and faster.
        ``exact=True`` always scans the scope exactly.
        """
        q = _vec(np.asarray(vector).ravel())
        dim = int(q.shape[0])
        if k <= 0:
            return []
        if exact:
            sql = (
                f"SELECT id, context_id, text, source, -(vector <#> %b) AS score FROM facts WHERE {_SCOPE} "
                "ORDER BY vector <#> %b LIMIT %s"
            )
            params: tuple[object, ...] = (q, *_sk(scope), q, k)
            return [(Fact(*r[:4]), float(r[4])) for r in self._db.query(sql, params)]
        expr = f"(vector::vector({dim}))"
        sql = (
            f"WITH hits AS MATERIALIZED (SELECT id, context_id, text, source, "
            f"-({expr} <#> %b::vector({dim})) AS score FROM facts WHERE {_SCOPE} AND vector_dims(vector) = {dim} "
            f"ORDER BY {expr} <#> %b::vector({dim}) LIMIT %s) SELECT * FROM hits ORDER BY score DESC"
        )
        with self._db.tx() as cur:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cur.execute(f"SET LOCAL hnsw.ef_search = {max(int(ef_search), int(k))}")
            cur.execute(sql, (q, *_sk(scope), q, k))
            rows = cur.fetchall()
        return [(Fact(*r[:4]), float(r[4])) for r in rows]

    # -- the HNSW index ---------------------------------------------------------------------------------

    def build_vector_index(
        self,
        dim: int,
        *,
        m: int = 16,
        ef_construction: int = 64,
        maintenance_work_mem_mb: int = 1024,
        timeout_s: float | None = None,
    ) -> bool:
        """Create the HNSW index for ``dim`` now (after a bulk load) if it does not exist yet. Returns
        False when ``timeout_s`` passed first (nothing is left behind: the statement is rolled back)."""
        try:
            with self._db.tx() as cur:
                cur.execute(f"SET LOCAL maintenance_work_mem = '{int(maintenance_work_mem_mb)}MB'")
                if timeout_s is not None:
                    cur.execute(f"SET LOCAL statement_timeout = {max(1, int(timeout_s * 1000))}")
                cur.execute(hnsw_index_sql(dim, m=m, ef_construction=ef_construction))
        except StoreError as exc:
            if timeout_s is not None and "statement timeout" in str(exc):
                return False
            raise
        self._indexed.add(dim)
        return True

    def has_vector_index(self, dim: int) -> bool:
        return bool(self._db.query("SELECT 1 FROM pg_indexes WHERE indexname = %s", (hnsw_index_name(dim),)))

    # -- events --------------------------------------------------------------------------------------------

    def add_events(self, scope: Scope, events: Sequence[Event], vectors: Matrix) -> int:
        added = 0
        now = time.time()
        with self._db.tx() as cur:
            for ev, vec in zip(events, vectors, strict=True):
                cur.execute(
                    f"INSERT INTO events ({_SCOPE_COLS}, id, text, fact_ids, source, vector, added_at) "
                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%b,%s) ON CONFLICT DO NOTHING",
                    (*_sk(scope), ev.id, ev.text, json.dumps(list(ev.fact_ids)), ev.source, _vec(vec), now),
                )
                if cur.rowcount:
                    added += 1
                    if ev.fact_ids:
                        cur.executemany(
                            f"INSERT INTO event_facts ({_SCOPE_COLS}, event_id, fact_id) "
                            "VALUES (%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                            [(*_sk(scope), ev.id, fid) for fid in ev.fact_ids],
                        )
            if added:
                self._bump(cur, scope)
        return added

    def events(self, scope: Scope) -> list[Event]:
        rows = self._db.query(f"SELECT {EVENT_COLUMNS} FROM events WHERE {_SCOPE} ORDER BY seq", _sk(scope))
        return [event_from_row(r) for r in rows]

    def event_matrix(self, scope: Scope) -> tuple[list[Event], Matrix]:
        rows = self._db.query(
            f"SELECT {EVENT_COLUMNS}, vector FROM events WHERE {_SCOPE} ORDER BY seq", _sk(scope), binary=True
        )
        return [event_from_row(r) for r in rows], _matrix([r[4] for r in rows], self._dim())

    def _dim(self) -> int:
        value = self.get_meta("embedder_dim")
        return int(value) if value else 0

    # -- accounting ------------------------------------------------------------------------------------

    def record_usage(self, scope: Scope, usage: dict[str, Usage]) -> None:
        with self._db.tx() as cur:
            for phase, u in usage.items():
                cur.execute(
                    f"INSERT INTO usage ({_SCOPE_COLS}, phase, calls, prompt_tokens, completion_tokens, seconds, "
                    "cached_calls, failed_calls) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
                    f"ON CONFLICT ({_SCOPE_COLS}, phase) DO UPDATE SET calls = usage.calls + excluded.calls, "
                    "prompt_tokens = usage.prompt_tokens + excluded.prompt_tokens, "
                    "completion_tokens = usage.completion_tokens + excluded.completion_tokens, "
                    "seconds = usage.seconds + excluded.seconds, "
                    "cached_calls = usage.cached_calls + excluded.cached_calls, "
                    "failed_calls = usage.failed_calls + excluded.failed_calls",
                    (
                        *_sk(scope),
                        phase,
                        u.calls,
                        u.prompt_tokens,
                        u.completion_tokens,
                        u.seconds,
                        u.cached_calls,
                        u.failed_calls,
                    ),
                )

    def usage(self, scope: Scope) -> dict[str, Usage]:
        rows = self._db.query(
            f"SELECT phase, calls, prompt_tokens, completion_tokens, seconds, cached_calls, "
            f"failed_calls FROM usage WHERE {_SCOPE} ORDER BY phase",
            _sk(scope),
        )
        return {r[0]: Usage(*r[1:]) for r in rows}

    # -- lifecycle (deletion, linking state, history; see postgres_lifecycle) ----------------------------

    def delete_records(
        self,
        scope: Scope,
        *,
        turn_ids: Sequence[str] = (),
        context_ids: Sequence[str] = (),
        fact_ids: Sequence[str] = (),
        event_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        with self._db.tx() as cur:
            counts = life.delete_records(cur, _sk(scope), turn_ids, context_ids, fact_ids, event_ids)
            self._bump(cur, scope)
        return counts

    def delete_scope(self, scope: Scope) -> dict[str, int]:
        with self._db.tx() as cur:
            return life.delete_scope(cur, _sk(scope))

    def unlinked_facts(self, scope: Scope) -> list[str]:
        return [
            r[0] for r in self._db.query(f"SELECT id FROM facts WHERE {_SCOPE} AND NOT linked ORDER BY seq", _sk(scope))
        ]

    def set_linked(self, scope: Scope, fact_ids: Sequence[str], linked: bool = True) -> None:
        if fact_ids:
            with self._db.tx() as cur:
                life.set_linked(cur, _sk(scope), fact_ids, linked)

    def restore_states(self, scope: Scope, states: Sequence[ExtractionState]) -> None:
        with self._db.tx() as cur:
            life.restore_states(cur, _sk(scope), states)
            self._bump(cur, scope)

    def append_history(
        self, scope: Scope, op: str, detail: Mapping[str, object], timestamp: float | None = None
    ) -> HistoryEntry:
        with self._db.tx() as cur:
            return life.append_history(cur, scope, _sk(scope), op, detail, timestamp)

    def history(self, scope: Scope, limit: int | None = None) -> list[HistoryEntry]:
        sql, params = history_query(scope, limit, "%s")
        return history_entries(self._db.query(sql, params))

    def scrub(self, full: bool = False) -> None:
        """Remove deleted rows from the tables and their indexes (``VACUUM``). Their bytes can stay in the
        pages' free space until overwritten; ``full=True`` rewrites the files (``VACUUM FULL``: an exclusive
        lock, and a rebuild of the HNSW index, slow on a large store)."""
        self._db.run_each([f"VACUUM {'FULL ' if full else ''}{t}" for t in life.TABLES])
