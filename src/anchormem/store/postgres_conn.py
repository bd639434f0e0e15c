"""One PostgreSQL connection for a store: connect, migrate, transactions, and psycopg errors as StoreError.

psycopg (3) and pgvector's adapters are imported here, on first connect, not at import time, so the
SQLite-only install never needs them loaded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from anchormem.errors import StoreError
from anchormem.store.pg_migrations import PG_MIGRATIONS, split_sql

_MIGRATION_LOCK = 0x616E63686F72  # pg_advisory_xact_lock key: only one process migrates at a time


def redact(url: str) -> str:
    """The URL without its password, for error messages."""
    head, sep, tail = url.partition("://")
    if not sep or "@" not in tail:
        return url
    creds, _, rest = tail.partition("@")
    user = creds.split(":", 1)[0]
    return f"{head}://{user}@{rest}"


class PgConnection:
    """A thread-safe (serialised) autocommit connection with explicit transactions."""

    def __init__(self, url: str, connect_timeout: float = 10.0) -> None:
        self.url = url
        self.where = redact(url)
        self._lock = threading.RLock()
        try:
            import psycopg
            from pgvector.psycopg import register_vector
        except ImportError as exc:  # pragma: no cover - the dependency is declared
            raise StoreError(f"PostgreSQL stores need psycopg and pgvector installed: {exc}") from exc
        self._errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        try:
            self.conn: Any = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(connect_timeout)))
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.where}: {exc}") from exc
        try:
            self._ensure_extension()
            register_vector(self.conn)
            self._migrate()
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"cannot open store {self.where}: {exc}") from exc
        except StoreError:
            self.conn.close()
            raise

    def _ensure_extension(self) -> None:
        row = self.conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
        if row:
            return
        try:
            self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except self._errors as exc:
            raise StoreError(
                f"the pgvector extension is missing on {self.where} and cannot be created "
                f"(run CREATE EXTENSION vector as a superuser): {exc}"
            ) from exc

    def _migrate(self) -> None:
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION)"
            )
            done = {r[0] for r in self.conn.execute("SELECT name FROM _migrations").fetchall()}
            for name, sql in PG_MIGRATIONS:
                if name in done:
                    continue
                for statement in split_sql(sql):
                    self.conn.execute(statement)
                self.conn.execute("INSERT INTO _migrations VALUES (%s, %s)", (name, time.time()))

    def migrations(self) -> list[str]:
        return [r[0] for r in self.query("SELECT name FROM _migrations ORDER BY name")]

    @contextmanager
    def tx(self) -> Iterator[Any]:
        """A transaction; yields a cursor. Any error rolls everything back."""
        with self._lock:
            try:
                with self.conn.transaction(), self.conn.cursor() as cur:
                    yield cur
            except self._errors as exc:
                raise StoreError(f"write failed on {self.where}: {exc}") from exc

    def query(self, sql: str, params: Sequence[object] = (), binary: bool = False) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                with self.conn.cursor(binary=binary) as cur:
                    cur.execute(sql, params)
                    return list(cur.fetchall())
            except self._errors as exc:
                raise StoreError(f"query failed on {self.where}: {exc}") from exc

    def run_each(self, statements: Sequence[str]) -> None:
        """Statements that cannot run inside a transaction (VACUUM), each on its own."""
        with self._lock:
            try:
                for sql in statements:
                    self.conn.execute(sql)
            except self._errors as exc:
                raise StoreError(f"maintenance failed on {self.where}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            try:
                self.conn.close()
            except self._errors as exc:
                raise StoreError(f"closing {self.where} failed: {exc}") from exc
