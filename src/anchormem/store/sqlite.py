"""The embedded default store: one SQLite file, WAL, transactions, migrations on open.

Vectors are float32 blobs next to their rows; search is exact, in numpy, over one scope's matrix
(see :mod:`anchormem.query`). The SQL is :class:`~anchormem.store.sql.SQLStore`'s; this module holds
what is SQLite's own: the dialect, the connection (``BEGIN IMMEDIATE`` transactions, pragmas) and
scrubbing (``secure_delete`` zeroes freed pages; the WAL is checkpointed and truncated).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np

from anchormem.errors import StoreError
from anchormem.store.migrations import SQLITE_MIGRATIONS
from anchormem.store.protocol import Matrix
from anchormem.store.sql import Dialect, SQLStore


def _blob(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def _matrix(blobs: list[Any]) -> Matrix:
    return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), -1).copy()


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
)


class SQLiteConnection:
    """One sqlite3 connection in autocommit mode with explicit ``BEGIN IMMEDIATE`` transactions."""

    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OverflowError)  # OverflowError: an int too large

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
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open store {self.where}: {exc}") from exc
        self._memory = memory

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db.cursor()
        except BaseException:
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error:
            with suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    def fetch(self, sql: str, params: Sequence[object], binary: bool) -> list[tuple[Any, ...]]:
        return self.db.execute(sql, params).fetchall()

    def scrub(self, full: bool) -> None:
        """Checkpoint the WAL into the database and truncate it (secure_delete has zeroed freed pages)."""
        if not self._memory:
            checkpoint(self.db)

    def close(self) -> None:
        self.db.close()


def checkpoint(db: sqlite3.Connection, attempts: int = 20) -> bool:
    """Checkpoint the WAL into the database and truncate it to zero bytes; False when readers kept it busy."""
    for attempt in range(attempts):
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy is None or not busy[0]:
            return True
        time.sleep(min(0.05 * (attempt + 1), 0.5))
    return False


class SQLiteStore(SQLStore):
    """A :class:`~anchormem.store.protocol.Store` in one SQLite file (``":memory:"`` works too).

    The file's folder must exist unless ``create_parent`` (a mistyped path must not make folders)."""

    def __init__(self, path: str | Path, timeout: float = 30.0, *, create_parent: bool = False) -> None:
        super().__init__(SQLiteConnection(path, timeout, create_parent=create_parent), SQLITE)
