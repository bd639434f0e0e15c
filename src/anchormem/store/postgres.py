"""The server store: PostgreSQL with pgvector, selected by a ``postgresql://`` URL.

Same schema and semantics as the SQLite store: the SQL is :class:`~anchormem.store.sql.core.SQLStore`'s;
this module holds what is PostgreSQL's own: the dialect, the connections (a psycopg 3 pool that
replaces broken connections, pgvector's adapters, an advisory lock around migrations and one per
scope around its write transactions) and scrubbing (``VACUUM``, ``VACUUM FULL`` on demand).

Every row carries its scope, and every per-scope read is an index range scan on (scope, seq), so one
user's memory loads in reading order without touching the others'. Vectors are pgvector ``vector``
columns (float32, sent and read in binary). Search loads one scope's vectors (cached per scope version)
and ranks them exactly in numpy, as on SQLite; migration ``0003_drop_hnsw`` removed the one HNSW index
over every user's facts that earlier versions built (no query read it, and every insert paid for it).
A big scope (:data:`~anchormem.store.pg_ann.MIN_FACTS` facts and more) may instead have an HNSW index of
its own, read by :meth:`PostgresStore.nearest_facts` (:mod:`anchormem.store.pg_ann`; built by
:meth:`PostgresStore.index_big_scopes`, ``anchormem maintenance ann-index``).

psycopg, psycopg-pool and pgvector are imported on first connect, not at import time, so a SQLite-only install never
loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from anchormem._util.extras import requires_extra
from anchormem.errors import StoreError, StoreFullError, StoreUnavailableError
from anchormem.model import Scope
from anchormem.store import pg_ann
from anchormem.store.protocol import Matrix
from anchormem.store.sql.core import SQLStore
from anchormem.store.sql.dialect import Dialect
from anchormem.store.sql.keys import sk as _sk
from anchormem.store.sql.migrations import PG_MIGRATIONS

T = TypeVar("T")

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
    analyze="ANALYZE {table}",
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

    # -- nearest facts by pgvector's HNSW index, for scopes of MIN_FACTS facts (see anchormem.store.pg_ann) --

    def _ann(self, what: str, fn: Callable[[Any], T]) -> T:
        conn = self._conn
        assert isinstance(conn, PgConnection)
        try:
            with conn.pool.connection() as raw:
                return fn(raw)
        except conn.errors as exc:
            raise self._error(what, exc) from exc

    def _ann_dim(self, dim: int | None) -> int:
        dim = dim or self._dim()
        if dim <= 0:
            raise StoreError("the store holds no vectors yet: no dimension to index")
        return dim

    def nearest_facts(
        self, scope: Scope, vector: npt.NDArray[np.floating], k: int, *, ef_search: int = pg_ann.EF_SEARCH
    ) -> list[tuple[str, float]]:
        """The ``k`` facts of ``scope`` with the highest inner product with ``vector`` (the cosine, for unit
        vectors), best first, as (fact id, score): through the scope's HNSW index when it has one
        (approximate: ``ef_search`` candidates), else exactly (every fact of the scope, in the database)."""
        return self._ann("nearest facts failed", lambda c: pg_ann.nearest(c, _sk(scope), vector, k, ef_search))

    def fact_scores(self, scope: Scope, vector: npt.NDArray[np.floating], ids: Sequence[str]) -> dict[str, float]:
        """The inner product of ``vector`` with each stored fact of ``ids`` in ``scope``, exactly (no index)."""
        return self._ann("fact scores failed", lambda c: pg_ann.scores(c, _sk(scope), vector, ids))

    def fact_vectors(self, scope: Scope, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored vectors of ``scope``'s facts ``ids``, by id (a search through the index reads the few rows it
        needs, not the scope's matrix)."""
        return self._ann("reading fact vectors failed", lambda c: pg_ann.vectors(c, _sk(scope), ids))

    def fact_vector_mean(self, scope: Scope, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], int]:
        """The mean of the vectors of ``scope``'s facts ``ids``, computed in the database, and their count."""
        return self._ann("averaging fact vectors failed", lambda c: pg_ann.mean(c, _sk(scope), ids))

    def ann_indexed(self, scope: Scope, dim: int | None = None) -> bool:
        """Whether ``scope`` has a usable HNSW index (for vectors of ``dim``, default the embedder's)."""
        d = dim or self._dim()
        return d > 0 and self._ann("index lookup failed", lambda c: pg_ann.exists(c, _sk(scope), d))

    def ann_scopes(self) -> dict[Scope, int]:
        """Every scope that has a usable HNSW index, with the dimension it indexes."""
        found = self._ann("index lookup failed", pg_ann.indexed)
        return {Scope(u, a or None, r or None): dim for (u, a, r), dim in found.items()}

    def build_ann_index(
        self,
        scope: Scope,
        *,
        dim: int | None = None,
        m: int = 16,
        ef_construction: int = pg_ann.EF_CONSTRUCTION,
        maintenance_work_mem: str | None = None,
        workers: int | None = None,
        concurrently: bool = True,
    ) -> bool:
        """Build ``scope``'s HNSW index (vectors of ``dim``, default the embedder's) unless it has one; True when
        built now. See :func:`anchormem.store.pg_ann.create` for the options."""
        d = self._ann_dim(dim)
        options: dict[str, Any] = {"m": m, "ef_construction": ef_construction, "workers": workers}
        options.update(maintenance_work_mem=maintenance_work_mem, concurrently=concurrently)
        return self._ann("building the index failed", lambda c: pg_ann.create(c, _sk(scope), d, **options))

    def drop_ann_index(self, scope: Scope, dim: int | None = None) -> bool:
        """Drop ``scope``'s HNSW index; True when it had one."""
        d = self._ann_dim(dim)
        return self._ann("dropping the index failed", lambda c: pg_ann.drop(c, _sk(scope), d))

    def index_big_scopes(self, min_facts: int = pg_ann.MIN_FACTS, **build: Any) -> dict[str, list[Scope]]:
        """The rule: a scope of at least ``min_facts`` facts has an HNSW index, one below ``min_facts // 2``
        has none (the gap keeps a scope near the line from being rebuilt again and again). Builds the missing
        ones, one at a time (``build``: :meth:`build_ann_index`'s options; concurrently by default), drops
        those of scopes that shrank; returns the scopes ``built``, ``dropped`` and ``kept``."""
        dim = self._ann_dim(None)
        floor = max(1, min_facts // 2)
        big = self._ann("counting facts failed", lambda c: pg_ann.fact_counts(c, floor, min_facts))
        have = {key for key, d in self._ann("index lookup failed", pg_ann.indexed).items() if d == dim}
        done: dict[str, list[Scope]] = {"built": [], "dropped": [], "kept": []}
        for key in sorted(have | {key for key, n in big.items() if n >= min_facts}):
            scope = Scope(key[0], key[1] or None, key[2] or None)
            if key not in big:
                self.drop_ann_index(scope, dim)
                done["dropped"].append(scope)
            elif key in have:
                done["kept"].append(scope)
            else:
                self.build_ann_index(scope, dim=dim, **build)
                done["built"].append(scope)
        return done

    def delete_scope(self, scope: Scope) -> dict[str, int]:
        """See the protocol; then drops the scope's HNSW index (its file goes with it), waiting at most 5 s for
        the transactions reading ``facts``: past that the index stays, empty, until the next
        :meth:`index_big_scopes`."""
        counts = super().delete_scope(scope)
        key = _sk(scope)
        dims = [d for k, d in self._ann("index lookup failed", pg_ann.indexed).items() if k == key]

        def drop(conn: Any) -> None:
            for dim in dims:
                pg_ann.drop(conn, key, dim, wait=5.0)

        if dims:
            self._ann("dropping the index failed", drop)
        return counts

    def ann_index_size(self, scope: Scope, dim: int | None = None) -> int:
        """The bytes of ``scope``'s HNSW index on disk (0: none)."""
        d = self._ann_dim(dim)
        return self._ann("index lookup failed", lambda c: pg_ann.size(c, _sk(scope), d))

    def explain_nearest(self, scope: Scope, vector: npt.NDArray[np.floating], k: int) -> str:
        """PostgreSQL's plan of :meth:`nearest_facts` for ``scope`` (it names the HNSW index when it is used)."""
        return self._ann("explain failed", lambda c: pg_ann.explain(c, _sk(scope), vector, k))
