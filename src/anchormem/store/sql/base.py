"""The plumbing of the SQL store: one connection (or pool) behind a lock, transactions (one a scope at a
time across processes, joined by nested writes), the translation of driver errors into the anchormem
exception tree, migrations on open, health and maintenance. :class:`~anchormem.store.sql.core.SQLStore`
builds the Store protocol on it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from anchormem.errors import StoreError, StoreFullError
from anchormem.model import Scope
from anchormem.store.journal import Change, Journal
from anchormem.store.sql import integrity
from anchormem.store.sql.check import CheckReport
from anchormem.store.sql.check import check as check_store
from anchormem.store.sql.dialect import Connection, Cursor, Dialect
from anchormem.store.sql.keys import sk as _sk
from anchormem.store.sql.migrations import split_sql

ANALYZE_AFTER = 1_000  # rows one write adds to a table, from which it refreshes the planner's statistics (``_grew``)


class SQLBase:
    """Transactions, reads, errors, migrations and maintenance over one :class:`Connection`."""

    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self._conn = conn
        self.dialect = dialect
        self._lock = threading.RLock()
        self._open: Cursor | None = None  # the transaction this store's lock holder has open
        self.journal = Journal()  # what this process's committed writes changed (anchormem.store.journal)
        self._pending: list[tuple[Scope, int, Change]] = []  # changes of the open transaction
        try:
            self._migrate()
        except BaseException:
            with suppress(*conn.errors):
                conn.close()
            raise

    @property
    def path(self) -> str:
        """Where the store is: a file path, or a URL without its password."""
        return self._conn.where

    @property
    def schema_version(self) -> int:
        """How many migrations the store's schema holds (a snapshot file of another schema is stale)."""
        return len(self.dialect.migrations)

    @contextmanager
    def _tx(self, what: str = "write", scope: Scope | None = None) -> Iterator[Cursor]:
        """A write transaction (joining the one :meth:`transaction` opened, if any); with ``scope``, it
        first takes that scope's lock, so the scope's write transactions run one at a time across processes."""
        with self._lock:
            if self._open is not None:
                if scope is not None:
                    self._lock_scope(self._open, scope)
                yield self._open
                return
            self._pending = []
            try:
                with self._conn.transaction() as raw:
                    cur = self._open = Cursor(raw, self.dialect)
                    try:
                        if scope is not None:
                            self._lock_scope(cur, scope)
                        yield cur
                    finally:
                        self._open = None
            except self._conn.errors as exc:
                raise self._error(f"{what} failed", exc) from exc
            finally:
                committed, self._pending = self._pending, []
            for changed, version, change in committed:  # reached only when the transaction committed
                self.journal.record(changed, version, change)

    def _changed(self, scope: Scope, version: int, change: Change) -> None:
        """Note what a write of the open transaction did to ``scope`` at ``version`` (journaled on commit)."""
        self._pending.append((scope, version, change))

    @contextmanager
    def transaction(self, scope: Scope) -> Iterator[None]:
        """One transaction for every write of ``scope`` made in the block (by this thread; other threads wait):
        all of them are stored, or, if the block raises, none."""
        with self._tx("write", scope):
            yield

    def _grew(self, cur: Cursor, table: str, added: int) -> None:
        """After a write added (or changed) ``added`` rows of ``table``: when they are many, refresh the planner's
        statistics inside the transaction. A table filled in one transaction (an import, a first big add) otherwise
        still looks empty to PostgreSQL's planner, which then answers each update by id through the scope's status
        or sequence index, one scan of the whole scope per row: an import of 50,000 turns did not finish in 15
        minutes. ``ANALYZE`` sees the transaction's own rows and costs a sample of them."""
        if self.dialect.analyze is not None and added >= ANALYZE_AFTER:
            cur.execute(self.dialect.analyze.format(table=table))

    def _lock_scope(self, cur: Cursor, scope: Scope) -> None:
        if self.dialect.scope_lock:
            cur.execute(self.dialect.scope_lock, (integrity.lock_key(_sk(scope)),))

    def _error(self, what: str, exc: BaseException) -> StoreError:
        kind = self._conn.error_class(exc)
        if kind is StoreFullError:
            return kind(f"{what} on {self.path}: the disk or the store's size limit is full; nothing of it was stored")
        return kind(f"{what} on {self.path}: {self._conn.describe(exc)}")

    def _q(self, sql: str, params: Sequence[object] = (), *, binary: bool = False) -> list[tuple[Any, ...]]:
        with self._lock:
            within = self._open.raw if self._open is not None else None
            try:
                return self._conn.fetch(self.dialect.sql(sql), params, binary, within)
            except self._conn.errors as exc:
                raise self._error("query failed", exc) from exc

    def ping(self) -> None:
        """Raise :class:`StoreError` (:class:`StoreUnavailableError` for a database that cannot be reached)
        unless the store answers now."""
        with self._lock:
            try:
                self._conn.ping()
            except self._conn.errors as exc:
                raise self._error("the store does not answer", exc) from exc

    def _migrate(self) -> None:
        d = self.dialect
        with suppress(StoreError):  # no _migrations table yet: the transaction below makes it
            if set(self.migrations()) >= {name for name, _ in d.migrations}:
                return  # nothing to write (a read-only file opens too)
        with self._tx("migration") as cur:
            if d.migration_lock:
                cur.execute(d.migration_lock)
            cur.execute(f"CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at {d.real})")
            done = {r[0] for r in cur.execute("SELECT name FROM _migrations").fetchall()}
            for name, sql in d.migrations:
                if name in done:
                    continue  # another process applied it meanwhile
                for statement in split_sql(sql):
                    cur.execute(statement)
                cur.execute("INSERT INTO _migrations VALUES (?, ?)", (name, time.time()))

    def migrations(self) -> list[str]:
        """The names of the applied migrations."""
        return [r[0] for r in self._q("SELECT name FROM _migrations ORDER BY name")]

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.close()
            except self._conn.errors as exc:
                raise self._error("closing failed", exc) from exc

    def scrub(self, full: bool = False) -> None:
        """Make deleted rows unrecoverable from the store's files (see the backend: SQLite zeroes freed
        pages and truncates its WAL; PostgreSQL vacuums, ``full=True`` rewrites the files)."""
        with self._lock:
            try:
                self._conn.scrub(full)
            except self._conn.errors as exc:
                raise self._error("scrub failed", exc) from exc

    def check(self) -> CheckReport:
        """Check the store is whole (the database's own check, then the store's invariants; see
        :mod:`~anchormem.store.sql.check`); reads only, repairs nothing."""
        with self._lock:
            try:
                findings = self._conn.integrity()
            except self._conn.errors as exc:
                raise self._error("integrity check failed", exc) from exc
        return check_store(self._q, self.path, findings, [name for name, _ in self.dialect.migrations])
