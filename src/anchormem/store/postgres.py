"""The server store: PostgreSQL with pgvector, selected by a ``postgresql://`` URL.

Same schema and semantics as the SQLite store: the SQL is :class:`~anchormem.store.sql.SQLStore`'s;
this module holds what is PostgreSQL's own: the dialect, the connection (psycopg 3, pgvector's
adapters, an advisory lock around migrations) and scrubbing (``VACUUM``).

Every row carries its scope, and every per-scope read is an index range scan on (scope, seq), so one
user's memory loads in reading order without touching the others'. Vectors are pgvector ``vector``
columns (float32, sent and read in binary). There is no approximate-nearest-neighbour index: search
loads one scope's vectors (cached per scope version) and ranks them exactly in numpy, as on SQLite,
so an HNSW index would never be read; migration ``0003_drop_hnsw`` removes the ones earlier versions
built on ingest.

psycopg and pgvector are imported on first connect, not at import time, so a SQLite-only install never
loads them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from anchormem.errors import StoreError
from anchormem.extras import requires_extra
from anchormem.store.migrations import PG_MIGRATIONS
from anchormem.store.protocol import Matrix
from anchormem.store.sql import Dialect, SQLStore

_MIGRATION_LOCK = 0x616E63686F72  # pg_advisory_xact_lock key: only one process migrates at a time


def _vector(row: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(row, dtype=np.float32)


def _matrix(vectors: list[Any]) -> Matrix:
    return np.stack([v.to_numpy() for v in vectors]).astype(np.float32, copy=False)


POSTGRES = Dialect(
    # statements
    placeholder="%s",
    insert_ignore="INSERT INTO {into} ON CONFLICT DO NOTHING",
    in_ids="= ANY(?)",  # one array parameter
    id_list=list,
    order="seq",
    greatest="GREATEST",
    returning_seq=" RETURNING seq",
    inserted_seq=lambda cur: int(cur.fetchone()[0]),
    for_update=" FOR UPDATE",
    # vectors: pgvector, sent and read in binary
    vector_placeholder="%b",
    encode=_vector,
    decode=_matrix,
    # schema
    real="DOUBLE PRECISION",
    migrations=PG_MIGRATIONS,
    migration_lock=f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})",
)


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    head, sep, tail = url.partition("://")
    if not sep or "@" not in tail:
        return url
    creds, _, rest = tail.partition("@")
    user = creds.split(":", 1)[0]
    return f"{head}://{user}@{rest}"


class PgConnection:
    """One autocommit psycopg connection with explicit transactions."""

    def __init__(self, url: str, connect_timeout: float = 10.0) -> None:
        self.where = redact(url)
        with requires_extra("postgres", "a PostgreSQL store"):
            import psycopg
            from pgvector.psycopg import register_vector
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        try:
            self.conn: Any = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(connect_timeout)))
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.where}: {exc}") from exc
        try:
            self._ensure_extension()
            register_vector(self.conn)
        except psycopg.Error as exc:
            self.conn.close()
            raise StoreError(f"cannot open store {self.where}: {exc}") from exc
        except StoreError:
            self.conn.close()
            raise

    def _ensure_extension(self) -> None:
        if self.conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
            return
        try:
            self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except self.errors as exc:
            raise StoreError(
                f"the pgvector extension is missing on {self.where} and cannot be created "
                f"(run CREATE EXTENSION vector as a superuser): {exc}"
            ) from exc

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.conn.transaction(), self.conn.cursor() as cur:
            yield cur

    def fetch(self, sql: str, params: Sequence[object], binary: bool) -> list[tuple[Any, ...]]:
        with self.conn.cursor(binary=binary) as cur:
            cur.execute(sql, params)
            return list(cur.fetchall())

    def scrub(self, full: bool) -> None:
        """``VACUUM`` each table (it cannot run inside a transaction). Freed bytes can stay in the pages'
        free space until overwritten; ``full`` rewrites the files (an exclusive lock, slow on a large store)."""
        for table in ("turns", "contexts", "facts", "events", "event_facts", "usage"):
            self.conn.execute(f"VACUUM {'FULL ' if full else ''}{table}")

    def close(self) -> None:
        self.conn.close()


class PostgresStore(SQLStore):
    """A :class:`~anchormem.store.protocol.Store` in a PostgreSQL database with the pgvector extension."""

    def __init__(self, url: str, *, connect_timeout: float = 10.0) -> None:
        self.url = url
        super().__init__(PgConnection(url, connect_timeout=connect_timeout), POSTGRES)
