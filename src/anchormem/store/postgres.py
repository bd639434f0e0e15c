"""The server store: PostgreSQL with pgvector, selected by a ``postgresql://`` URL.

Same schema and semantics as the SQLite store: the SQL is :class:`~anchormem.store.sql.core.SQLStore`'s;
this module holds what is PostgreSQL's own: the dialect, the connections (a psycopg 3 pool that
replaces broken connections, pgvector's adapters, an advisory lock around migrations and one per
scope around its write transactions) and scrubbing (``VACUUM``, ``VACUUM FULL`` on demand).

Every row carries its scope, and every per-scope read is an index range scan on (scope, seq), so one
user's memory loads in reading order without touching the others'. Vectors are pgvector ``vector``
columns (float32, sent and read in binary). There is no approximate-nearest-neighbour index: search
loads one scope's vectors (cached per scope version) and ranks them exactly in numpy, as on SQLite,
so an HNSW index would never be read; migration ``0003_drop_hnsw`` removes the ones earlier versions
built on ingest.

psycopg, psycopg-pool and pgvector are imported on first connect, not at import time, so a SQLite-only install never
loads them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import numpy as np

from anchormem._util.extras import requires_extra
from anchormem.errors import StoreError, StoreFullError, StoreUnavailableError
from anchormem.store.protocol import Matrix
from anchormem.store.sql.core import SQLStore
from anchormem.store.sql.dialect import Dialect
from anchormem.store.sql.migrations import PG_MIGRATIONS

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
    scope_lock="SELECT pg_advisory_xact_lock(CAST(? AS BIGINT))",
)
SCRUBBED_TABLES = ("turns", "contexts", "facts", "events", "event_facts", "usage")  # rows a delete removes


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    head, sep, tail = url.partition("://")
    if not sep or "@" not in tail:
        return url
    creds, _, rest = tail.partition("@")
    user = creds.split(":", 1)[0]
    return f"{head}://{user}@{rest}"


class PgConnection:
    """A small pool of autocommit psycopg connections (``psycopg_pool``) with explicit transactions.

    A connection the server dropped (a restart, ``pg_terminate_backend``, a network cut) is checked
    and replaced when next taken from the pool; a read that fails because its connection broke is run
    once more on a fresh one. Writes are not retried (the caller sees the error, nothing half-done
    stays: the transaction was not committed).
    """

    def __init__(self, url: str, connect_timeout: float = 10.0, max_size: int = 4) -> None:
        self.where = redact(url)
        with requires_extra("postgres", "a PostgreSQL store"):
            import psycopg
            from pgvector.psycopg import register_vector
            from psycopg_pool import ConnectionPool
        self._psycopg = psycopg
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        self.timeout = max(1.0, float(connect_timeout))
        try:  # the extension first: the pool's connections register its types as they open
            with psycopg.connect(url, autocommit=True, connect_timeout=int(self.timeout)) as first:
                self._ensure_extension(first)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.where}: {exc}") from exc
        self.pool: Any = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "connect_timeout": int(self.timeout)},
            configure=register_vector,
            check=ConnectionPool.check_connection,
            timeout=self.timeout,
            name="anchormem",
            open=False,
        )
        try:
            self.pool.open(wait=True, timeout=self.timeout)
        except psycopg.Error as exc:
            self.pool.close()
            raise StoreError(f"cannot open store {self.where}: {exc}") from exc

    def _ensure_extension(self, conn: Any) -> None:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
            return
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except self.errors as exc:
            # several processes opening a fresh database at once: the losers of the race get a unique
            # violation although the extension now exists
            if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
                return
            raise StoreError(
                f"the pgvector extension is missing on {self.where} and cannot be created "
                f"(run CREATE EXTENSION vector as a superuser): {exc}"
            ) from exc

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            yield cur

    def fetch(self, sql: str, params: Sequence[object], binary: bool, within: Any = None) -> list[tuple[Any, ...]]:
        if within is not None:
            with within.connection.cursor(binary=binary) as cur:
                cur.execute(sql, params)
                return list(cur.fetchall())
        for attempt in (1, 2):
            conn: Any = None
            try:
                with self.pool.connection() as conn, conn.cursor(binary=binary) as cur:
                    cur.execute(sql, params)
                    return list(cur.fetchall())
            except self._psycopg.OperationalError:
                if attempt == 2 or conn is None or not conn.broken:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def ping(self) -> None:
        with self.pool.connection() as conn:
            conn.execute("SELECT 1").fetchone()

    def describe(self, exc: BaseException) -> str:
        return str(exc)

    def integrity(self) -> list[str] | None:
        return None  # no page check built in (amcheck, pg_checksums are the server's tools)

    def error_class(self, exc: BaseException) -> type[StoreError]:
        from psycopg_pool import PoolTimeout

        errors = self._psycopg.errors
        if isinstance(exc, errors.DiskFull):
            return StoreFullError
        if isinstance(exc, PoolTimeout) or (
            isinstance(exc, self._psycopg.OperationalError)
            and (exc.sqlstate is None or exc.sqlstate.startswith(("08", "57P")))
        ):
            return StoreUnavailableError
        return StoreError

    def scrub(self, full: bool) -> None:
        """``VACUUM`` each table that holds memory rows (it cannot run inside a transaction). A plain vacuum
        leaves freed bytes in the pages' free space until overwritten; ``full`` rewrites the tables (and
        their TOAST tables and indexes) into new files, dropping the old ones, then asks for a
        ``CHECKPOINT`` (which needs the pg_checkpoint role or a superuser; without it the server's own
        checkpoint comes within ``checkpoint_timeout``). ``VACUUM FULL`` locks each table exclusively while
        it is rewritten: slow on a large store, so it runs on demand (``anchormem maintenance scrub``)."""
        with self.pool.connection() as conn:
            for table in SCRUBBED_TABLES:
                conn.execute(f"VACUUM {'FULL ' if full else ''}{table}")
            if full:
                with suppress(self._psycopg.errors.InsufficientPrivilege):
                    conn.execute("CHECKPOINT")

    def close(self) -> None:
        self.pool.close()


class PostgresStore(SQLStore):
    """A :class:`~anchormem.store.protocol.Store` in a PostgreSQL database with the pgvector extension."""

    def __init__(self, url: str, *, connect_timeout: float = 10.0) -> None:
        self.url = url
        super().__init__(PgConnection(url, connect_timeout=connect_timeout), POSTGRES)
