"""One SQLite connection shared by threads behind a lock, its failures raised as :class:`StoreError`, and
the base of a resource kept in one such file (the LLM response cache and the batch store)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from anchormem._util.closeable import Closeable
from anchormem.errors import StoreError


class SharedSQLite:
    """Statements on ``db``, one at a time under ``lock``; a failure raises :class:`StoreError` that
    begins with ``what`` (the store's name and file)."""

    def __init__(self, db: sqlite3.Connection, what: str) -> None:
        self.db = db
        self.lock = threading.Lock()  # held by every statement; a caller's own transaction holds it too
        self._what = what

    @classmethod
    def open(cls, path: Path, name: str, setup: Sequence[str]) -> SharedSQLite:
        """Open (create) the SQLite file ``path`` for use from any thread, in autocommit mode, and run
        ``setup`` (pragmas, schema); ``name`` names the store in errors (``"batch store"``)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            for statement in setup:
                db.execute(statement)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the {name} {path}: {exc}") from exc
        return cls(db, f"{name} {path}")

    def query(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows ``sql`` returns."""
        with self.lock:
            try:
                return list(self.db.execute(sql, args).fetchall())
            except sqlite3.Error as exc:
                raise StoreError(f"{self._what}: {exc}") from exc

    def run(self, sql: str, args: tuple[object, ...] = ()) -> int:
        """Execute a statement; returns the number of rows it changed."""
        with self.lock:
            try:
                return int(self.db.execute(sql, args).rowcount)
            except sqlite3.Error as exc:
                raise StoreError(f"{self._what}: {exc}") from exc

    def close(self) -> None:
        with self.lock:
            self.db.close()


class SQLiteFile(Closeable):
    """A resource kept in the SQLite file ``path``, opened (created) with ``setup`` for use from any
    thread (``_sql``); ``name`` names it in errors. Closing it closes the connection."""

    def __init__(self, path: Path, name: str, setup: Sequence[str]) -> None:
        self._path = Path(path)
        self._sql = SharedSQLite.open(self._path, name, setup)

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        self._sql.close()
