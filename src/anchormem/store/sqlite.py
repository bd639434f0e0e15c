"""The embedded default store: one SQLite file, WAL, transactions, migrations on open.

Vectors are float32 blobs next to their rows; search is exact, in numpy, over one
scope's matrix (see :mod:`anchormem.query`). sqlite3 errors are translated into
:class:`StoreError` here.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from anchormem.errors import StoreError
from anchormem.model import Context, Event, Fact, HistoryEntry, Scope, Turn, Usage
from anchormem.store import sqlite_lifecycle as life
from anchormem.store.migrations import SQLITE_MIGRATIONS
from anchormem.store.protocol import Extraction, ExtractionState, Matrix
from anchormem.store.sql_common import EVENT_COLUMNS, event_from_row, history_entries, history_query

_SCOPE = "user_id = ? AND agent_id = ? AND run_id = ?"


def _sk(scope: Scope) -> tuple[str, str, str]:
    return (scope.user_id, scope.agent_id or "", scope.run_id or "")


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def _matrix(blobs: Sequence[bytes], dim: int) -> Matrix:
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1).copy()


class SQLiteStore:
    """A :class:`~anchormem.store.protocol.Store` in one SQLite file (``":memory:"`` works too)."""

    def __init__(self, path: str | Path, timeout: float = 30.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            try:
                Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.path}: {exc.strerror}") from exc
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(
                str(Path(self.path).expanduser()) if self.path != ":memory:" else ":memory:",
                timeout=timeout,
                isolation_level=None,
                check_same_thread=False,
            )
            self._db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA secure_delete = ON")  # deleted rows are zeroed, not left in free pages
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc

    # -- plumbing ---------------------------------------------------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"store {self.path} is busy or unwritable: {exc}") from exc
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._db.execute("ROLLBACK")
                    raise StoreError(f"commit failed on {self.path}: {exc}") from exc

    def _q(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"query failed on {self.path}: {exc}") from exc

    def _migrate(self) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        done = {r[0] for r in self._db.execute("SELECT name FROM _migrations")}
        for name, sql in SQLITE_MIGRATIONS:
            if name in done:
                continue
            with self._tx() as db:
                if db.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone():
                    continue  # another process applied it meanwhile
                for statement in _split_sql(sql):
                    db.execute(statement)
                db.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))

    def _bump(self, db: sqlite3.Connection, scope: Scope) -> None:
        db.execute(
            "INSERT INTO scopes (user_id, agent_id, run_id, version) VALUES (?, ?, ?, 1 + COALESCE("
            "(SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'version_floor'), 0)) "
            "ON CONFLICT (user_id, agent_id, run_id) DO UPDATE SET version = version + 1",
            _sk(scope),
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value)
            )

    def version(self, scope: Scope) -> int:
        rows = self._q(f"SELECT version FROM scopes WHERE {_SCOPE}", _sk(scope))
        return int(rows[0][0]) if rows else 0

    def scopes(self) -> list[Scope]:
        return [
            Scope(u, a or None, r or None)
            for u, a, r in self._q("SELECT user_id, agent_id, run_id FROM scopes ORDER BY 1, 2, 3")
        ]

    # -- turns and contexts ------------------------------------------------------------------------------

    def add_turns(self, scope: Scope, turns: Sequence[Turn]) -> list[Turn]:
        added: list[Turn] = []
        now = time.time()
        with self._tx() as db:
            for t in turns:
                cur = db.execute(
                    "INSERT OR IGNORE INTO turns (user_id, agent_id, run_id, id, session, position, speaker, "
                    "text, timestamp, image_caption, added_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (*_sk(scope), t.id, t.session, t.position, t.speaker, t.text, t.timestamp, t.image_caption, now),
                )
                if cur.rowcount:
                    added.append(t)
            if added:
                self._bump(db, scope)
        return added

    def turns(self, scope: Scope, session: str | None = None) -> list[Turn]:
        sql = f"SELECT id, session, position, speaker, text, timestamp, image_caption FROM turns WHERE {_SCOPE}"
        params: list[object] = list(_sk(scope))
        if session is not None:
            sql += " AND session = ?"
            params.append(session)
        rows = self._q(sql + " ORDER BY rowid", params)
        return [Turn(*r) for r in rows]

    def add_contexts(self, scope: Scope, contexts: Sequence[Context]) -> list[Context]:
        added: list[Context] = []
        now = time.time()
        with self._tx() as db:
            for c in contexts:
                cur = db.execute(
                    "INSERT OR IGNORE INTO contexts (user_id, agent_id, run_id, id, session, position, "
                    "turn_ids, date, text, status, attempts, added_at) VALUES (?,?,?,?,?,?,?,?,?,'pending',0,?)",
                    (*_sk(scope), c.id, c.session, c.position, json.dumps(list(c.turn_ids)), c.date, c.text, now),
                )
                if cur.rowcount:
                    added.append(c)
            if added:
                self._bump(db, scope)
        return added

    def contexts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Context]:
        rows = self._q(
            f"SELECT id, session, position, turn_ids, date, text FROM contexts WHERE {_SCOPE} ORDER BY rowid",
            _sk(scope),
        )
        out = [
            Context(id=r[0], session=r[1], position=r[2], turn_ids=tuple(json.loads(r[3])), date=r[4], text=r[5])
            for r in rows
        ]
        if ids is not None:
            wanted = set(ids)
            out = [c for c in out if c.id in wanted]
        return out

    def extraction_states(self, scope: Scope) -> list[ExtractionState]:
        rows = self._q(f"SELECT id, status, error, attempts FROM contexts WHERE {_SCOPE} ORDER BY rowid", _sk(scope))
        return [ExtractionState(*r) for r in rows]

    # -- facts ---------------------------------------------------------------------------------------------

    def save_extractions(self, scope: Scope, extractions: Sequence[Extraction]) -> int:
        """Store each context's facts and mark the context done, all in one transaction."""
        added = 0
        now = time.time()
        with self._tx() as db:
            for ex in extractions:
                if len(ex.facts) != len(ex.vectors):
                    raise StoreError(f"{len(ex.facts)} facts but {len(ex.vectors)} vectors for {ex.context_id}")
                for fact, vec in zip(ex.facts, ex.vectors, strict=True):
                    cur = db.execute(
                        "INSERT OR IGNORE INTO facts (user_id, agent_id, run_id, id, context_id, text, source, "
                        "vector, added_at, linked) VALUES (?,?,?,?,?,?,?,?,?,0)",
                        (*_sk(scope), fact.id, fact.context_id, fact.text, fact.source, _blob(vec), now),
                    )
                    added += cur.rowcount
                db.execute(
                    f"UPDATE contexts SET status = 'done', error = NULL, attempts = attempts + 1 "
                    f"WHERE {_SCOPE} AND id = ?",
                    (*_sk(scope), ex.context_id),
                )
            self._bump(db, scope)
        return added

    def mark_failed(self, scope: Scope, context_id: str, error: str) -> None:
        with self._tx() as db:
            db.execute(
                f"UPDATE contexts SET status = 'failed', error = ?, attempts = attempts + 1 WHERE {_SCOPE} AND id = ?",
                (error[:2000], *_sk(scope), context_id),
            )

    def facts(self, scope: Scope, ids: Sequence[str] | None = None) -> list[Fact]:
        rows = self._q(f"SELECT id, context_id, text, source FROM facts WHERE {_SCOPE} ORDER BY rowid", _sk(scope))
        out = [Fact(*r) for r in rows]
        if ids is not None:
            wanted = set(ids)
            out = [f for f in out if f.id in wanted]
        return out

    def fact_matrix(self, scope: Scope) -> tuple[list[Fact], Matrix]:
        rows = self._q(
            f"SELECT id, context_id, text, source, vector FROM facts WHERE {_SCOPE} ORDER BY rowid", _sk(scope)
        )
        return [Fact(*r[:4]) for r in rows], _matrix([r[4] for r in rows], self._dim())

    # -- events --------------------------------------------------------------------------------------------

    def add_events(self, scope: Scope, events: Sequence[Event], vectors: Matrix) -> int:
        added = 0
        now = time.time()
        with self._tx() as db:
            for ev, vec in zip(events, vectors, strict=True):
                cur = db.execute(
                    "INSERT OR IGNORE INTO events (user_id, agent_id, run_id, id, text, fact_ids, source, vector, "
                    "added_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (*_sk(scope), ev.id, ev.text, json.dumps(list(ev.fact_ids)), ev.source, _blob(vec), now),
                )
                if cur.rowcount:
                    added += 1
                    db.executemany(
                        "INSERT OR IGNORE INTO event_facts (user_id, agent_id, run_id, event_id, "
                        "fact_id) VALUES (?,?,?,?,?)",
                        [(*_sk(scope), ev.id, fid) for fid in ev.fact_ids],
                    )
            if added:
                self._bump(db, scope)
        return added

    def events(self, scope: Scope) -> list[Event]:
        rows = self._q(f"SELECT {EVENT_COLUMNS} FROM events WHERE {_SCOPE} ORDER BY rowid", _sk(scope))
        return [event_from_row(r) for r in rows]

    def event_matrix(self, scope: Scope) -> tuple[list[Event], Matrix]:
        rows = self._q(f"SELECT {EVENT_COLUMNS}, vector FROM events WHERE {_SCOPE} ORDER BY rowid", _sk(scope))
        return [event_from_row(r) for r in rows], _matrix([r[4] for r in rows], self._dim())

    def _dim(self) -> int:
        value = self.get_meta("embedder_dim")
        return int(value) if value else 0

    # -- accounting ------------------------------------------------------------------------------------

    def record_usage(self, scope: Scope, usage: dict[str, Usage]) -> None:
        with self._tx() as db:
            for phase, u in usage.items():
                db.execute(
                    "INSERT INTO usage (user_id, agent_id, run_id, phase, calls, prompt_tokens, completion_tokens, "
                    "seconds, cached_calls, failed_calls) VALUES (?,?,?,?,?,?,?,?,?,?) "
                    "ON CONFLICT (user_id, agent_id, run_id, phase) DO UPDATE SET calls = calls + excluded.calls, "
                    "prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
                    "completion_tokens = completion_tokens + excluded.completion_tokens, "
                    "seconds = seconds + excluded.seconds, cached_calls = cached_calls + excluded.cached_calls, "
                    "failed_calls = failed_calls + excluded.failed_calls",
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
        rows = self._q(
            f"SELECT phase, calls, prompt_tokens, completion_tokens, seconds, cached_calls, "
            f"failed_calls FROM usage WHERE {_SCOPE} ORDER BY phase",
            _sk(scope),
        )
        return {r[0]: Usage(*r[1:]) for r in rows}

    # -- lifecycle (deletion, linking state, history; see sqlite_lifecycle) ------------------------------

    def delete_records(
        self,
        scope: Scope,
        *,
        turn_ids: Sequence[str] = (),
        context_ids: Sequence[str] = (),
        fact_ids: Sequence[str] = (),
        event_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        with self._tx() as db:
            counts = life.delete_records(db, _sk(scope), turn_ids, context_ids, fact_ids, event_ids)
            self._bump(db, scope)
        return counts

    def delete_scope(self, scope: Scope) -> dict[str, int]:
        with self._tx() as db:
            return life.delete_scope(db, _sk(scope))

    def unlinked_facts(self, scope: Scope) -> list[str]:
        return [r[0] for r in self._q(f"SELECT id FROM facts WHERE {_SCOPE} AND linked = 0 ORDER BY rowid", _sk(scope))]

    def set_linked(self, scope: Scope, fact_ids: Sequence[str], linked: bool = True) -> None:
        if fact_ids:
            with self._tx() as db:
                life.set_linked(db, _sk(scope), fact_ids, linked)

    def restore_states(self, scope: Scope, states: Sequence[ExtractionState]) -> None:
        with self._tx() as db:
            life.restore_states(db, _sk(scope), states)
            self._bump(db, scope)

    def append_history(
        self, scope: Scope, op: str, detail: Mapping[str, object], timestamp: float | None = None
    ) -> HistoryEntry:
        with self._tx() as db:
            return life.append_history(db, scope, _sk(scope), op, detail, timestamp)

    def history(self, scope: Scope, limit: int | None = None) -> list[HistoryEntry]:
        sql, params = history_query(scope, limit, "?")
        return history_entries(self._q(sql, params))

    def scrub(self) -> None:
        if self.path == ":memory:":
            return
        with self._lock:
            try:
                life.checkpoint(self._db)
            except sqlite3.Error as exc:
                raise StoreError(f"cannot checkpoint {self.path}: {exc}") from exc


def _split_sql(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]
