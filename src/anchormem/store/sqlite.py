"""The embedded default store: one SQLite file, WAL, transactions, migrations on open.

Vectors are float32 blobs next to their rows; search is exact, in numpy, over one scope's matrix
(see :mod:`anchormem.search`). The SQL is :class:`~anchormem.store.sql.core.SQLStore`'s; this module holds
what is SQLite's own: the dialect, the connection (``BEGIN IMMEDIATE`` transactions, pragmas) and
scrubbing (``secure_delete`` zeroes freed pages; the WAL is checkpointed and truncated).

Truncating the WAL never waits: a reader in another process that holds an old snapshot keeps the WAL
busy for as long as it likes, so a busy truncation is left pending and tried again, without waiting,
after each later write transaction of this connection and when it closes (the last connection to close
also checkpoints and removes the WAL). No call of any user waits on a reader for it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np

from anchormem.errors import StoreError, StoreFullError
from anchormem.store import reserve
from anchormem.store.protocol import Matrix
from anchormem.store.sql.core import SQLStore
from anchormem.store.sql.dialect import Dialect
from anchormem.store.sql.migrations import SQLITE_MIGRATIONS


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def _matrix(blobs: list[Any]) -> Matrix:
    # a bytearray is writable: the array takes it over without a second copy
    return np.frombuffer(bytearray().join(blobs), dtype=np.float32).reshape(len(blobs), -1)


SQLITE = Dialect(
    # vectors: float32 blobs
    vector_placeholder="?",
    encode=_blob,
    decode=_matrix,
    # statements
    placeholder="?",
    insert_ignore="INSERT OR IGNORE INTO {into}",
    in_ids="IN (SELECT value FROM json_each(?))",  # one JSON array parameter
    id_list=json.dumps,
    order="rowid",
    greatest="MAX",
    returning_seq="",
    inserted_seq=lambda cur: int(cur.lastrowid or 0),
    for_update="",  # BEGIN IMMEDIATE already holds the write lock
    # schema
    real="REAL",
    migrations=SQLITE_MIGRATIONS,
    migration_lock=None,  # BEGIN IMMEDIATE serialises migrating processes
    scope_lock=None,  # BEGIN IMMEDIATE serialises every write transaction of the file, across processes
    analyze=None,  # an update by id matches every column of the primary key, which SQLite prefers without statistics
)


class SQLiteConnection:
    """One sqlite3 connection in autocommit mode with explicit ``BEGIN IMMEDIATE`` transactions."""

    # OverflowError: an int too large; UnicodeDecodeError: a message of SQLite's that is not UTF-8 (see describe)
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OverflowError, UnicodeDecodeError)

    def __init__(self, path: str | Path, timeout: float = 30.0, *, create_parent: bool = False) -> None:
        self.where = str(path)
        memory = self.where == ":memory:"
        file = Path(self.where).expanduser()
        if not memory and not file.parent.is_dir():
            if not create_parent:
                raise StoreError(f"cannot open store {self.where}: the folder {file.parent} does not exist")
            try:
                file.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the folder for {self.where}: {exc.strerror}") from exc
        try:
            self.db = sqlite3.connect(
                ":memory:" if memory else str(file), timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self.db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA secure_delete = ON")  # deleted rows are zeroed, not left in free pages
        except self.errors as exc:
            if getattr(self, "db", None) is not None:
                with suppress(sqlite3.Error):
                    self.db.close()
            if not memory and no_room(self.where):
                raise StoreFullError(
                    f"cannot open store {self.where}: its disk is full (SQLite needs room for its -wal and -shm "
                    f"files): {describe(exc)}"
                ) from exc
            raise StoreError(f"cannot open store {self.where}: {describe(exc)}") from exc
        if not memory:
            reserve.ensure(file)  # room for a delete on a full disk (see anchormem.store.reserve)
        self._memory = memory
        self._timeout_ms = int(timeout * 1000)
        self.wal_pending = False  # a truncation of the WAL that readers kept busy, to try again

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db.cursor()
        except BaseException:
            self._rollback()
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error:
            self._rollback()
            raise
        if self.wal_pending:
            self._truncate_wal()

    def _rollback(self) -> None:
        if self.db.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")

    def fetch(self, sql: str, params: Sequence[object], binary: bool, within: Any = None) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

    def ping(self) -> None:
        self.db.execute("SELECT 1").fetchone()

    def describe(self, exc: BaseException) -> str:
        return describe(exc)

    def integrity(self) -> list[str] | None:
        return [str(r[0]) for r in self.db.execute("PRAGMA integrity_check(20)").fetchall()]

    def error_class(self, exc: BaseException) -> type[StoreError]:
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code == sqlite3.SQLITE_FULL or (code == sqlite3.SQLITE_IOERR and not self._memory and no_room(self.where)):
            return StoreFullError
        return StoreError

    def scrub(self, full: bool) -> None:
        """Checkpoint the WAL into the database and truncate it (secure_delete has zeroed freed pages);
        if readers keep it busy, the truncation stays pending (see the module's notes)."""
        if not self._memory:
            self._truncate_wal()

    def _truncate_wal(self) -> None:
        self.wal_pending = not truncate_wal(self.db, self._timeout_ms)

    def close(self) -> None:
        if self.wal_pending:
            with suppress(sqlite3.Error):
                self._truncate_wal()
        self.db.close()


DAMAGED = (
    "the file is damaged: `anchormem maintenance check` reports what is wrong; restore a backup or re-import an export"
)


def describe(exc: BaseException) -> str:
    """SQLite's message for ``exc``, readable whatever it holds.

    On a damaged file SQLite quotes what it could not parse ("malformed database schema (x) - unrecognized
    token: ...") and that may be bytes that are not UTF-8: Python's sqlite3 then raises a
    ``UnicodeDecodeError`` in place of the error; its ``object`` is the message, decoded here with
    replacement characters. A message of a damaged file says what to do."""
    if isinstance(exc, UnicodeDecodeError):
        raw = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
        text = raw.decode("utf-8", "replace").replace("\ufffd", "?")
        return f"{text} ({DAMAGED})"
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "malformed" in text:
        return f"{text} ({DAMAGED})"
    return text


ROOM = 1 << 20  # bytes a write may still need: less free space than this (or file size under a limit) is full


def no_room(path: str) -> bool:
    """Whether the store's disk is (nearly) full, or its files reached this process's file-size limit
    (SQLite reports a write refused for either as an I/O error, not as a full disk)."""
    files = [Path(path + tail) for tail in ("", "-wal", "-journal")]
    try:
        if shutil.disk_usage(Path(path).parent).free < ROOM:
            return True
        import resource

        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (OSError, ImportError):  # no resource module: not a Unix
        return False
    biggest = max((f.stat().st_size for f in files if f.exists()), default=0)
    return limit != resource.RLIM_INFINITY and biggest + ROOM >= limit


def truncate_wal(db: sqlite3.Connection, busy_timeout_ms: int) -> bool:
    """Checkpoint the WAL into the database and truncate it to zero bytes, without waiting for a reader
    or a writer of another connection; False when one kept it busy."""
    db.execute("PRAGMA busy_timeout = 0")
    try:
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError as exc:  # SQLITE_BUSY / SQLITE_LOCKED: another connection holds it now
        if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise
        return False
    finally:
        db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    return busy is None or not busy[0]


class SQLiteStore(SQLStore):
    """A :class:`~anchormem.store.protocol.Store` in one SQLite file (``":memory:"`` works too).

    The file's folder must exist unless ``create_parent`` (a mistyped path must not make folders)."""

    def __init__(self, path: str | Path, timeout: float = 30.0, *, create_parent: bool = False) -> None:
        super().__init__(SQLiteConnection(path, timeout, create_parent=create_parent), SQLITE)
