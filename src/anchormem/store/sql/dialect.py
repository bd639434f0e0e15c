"""The parts of a SQL store that differ between backends, as the core sees them.

A backend module (:mod:`anchormem.store.sqlite`, :mod:`anchormem.store.postgres`) supplies a
:class:`Dialect` (the SQL tokens and the vector codec that differ) and a :class:`Connection` (the
driver). The core (:mod:`anchormem.store.sql.core`) writes its statements once, with ``?`` placeholders,
and runs them through a :class:`Cursor`, which maps them to the driver's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ParamSpec, Protocol, TypeVar

import numpy as np

from anchormem.errors import StoreError
from anchormem.store.protocol import Matrix

P = ParamSpec("P")
R = TypeVar("R")

DAMAGED_ROW = "the store's file may be damaged: `anchormem maintenance check` reports what is wrong"


def decoder(fn: Callable[P, R]) -> Callable[P, R]:
    """A row decoder whose failure is a :class:`StoreError`: the database hands back what was written,
    unless its file is damaged in a way its own checks missed (a JSON list cut short, a vector blob of
    another length, a number where text was)."""

    @functools.wraps(fn)
    def decode(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise StoreError(f"a stored row cannot be read ({type(exc).__name__}: {exc}); {DAMAGED_ROW}") from exc

    return decode


@dataclass(frozen=True)
class Dialect:
    """What differs between the backends' SQL, and how vectors are stored."""

    placeholder: str  # the driver's parameter marker: "?" or "%s"
    vector_placeholder: str  # the marker of a vector parameter ("%b": pgvector's binary format)
    insert_ignore: str  # an insert of "{into}" that skips rows whose key exists
    order: str  # the column that orders a table's rows by insertion
    in_ids: str  # "column <in_ids>" matches a list of ids passed as one parameter
    id_list: Callable[[list[str]], object]  # that parameter
    greatest: str  # the scalar maximum of two values
    for_update: str  # suffix that locks a selected row until the transaction ends
    returning_seq: str  # suffix that makes an insert return the new history row's seq ...
    inserted_seq: Callable[[Any], int]  # ... and how to read it from the cursor
    encode: Callable[[np.ndarray], object]  # one vector as a parameter
    decode: Callable[[list[Any]], Matrix]  # a non-empty list of stored vectors as a float32 matrix
    real: str  # the double-precision column type
    migrations: Sequence[tuple[str, str]]
    migration_lock: str | None  # a statement that serialises migrating processes (None: the transaction does)
    # a statement taking one parameter (a signed 64-bit key of a scope) that serialises the write transactions of
    # that scope across processes until the transaction ends (None: every write transaction is already serial)
    scope_lock: str | None
    # a statement refreshing the planner's statistics of table "{table}" (None: the planner needs none): run after a
    # write adds many rows, so the statements that follow in its transaction use the primary key (``SQLStore._grew``)
    analyze: str | None

    def sql(self, text: str) -> str:
        return with_placeholder(text, self.placeholder)

    def insert(self, into: str) -> str:
        """An insert of ``into`` ("table (columns) VALUES (...)") that skips rows whose key exists."""
        return self.insert_ignore.format(into=into)


@lru_cache(maxsize=256)
def with_placeholder(text: str, placeholder: str) -> str:
    return text if placeholder == "?" else text.replace("?", placeholder)


class Connection(Protocol):
    """A driver connection. Methods raise the driver's own errors (listed in :attr:`errors`); the store
    serialises calls and translates those errors."""

    where: str  # the store's location for messages (never a password)
    errors: tuple[type[BaseException], ...]

    def transaction(self) -> AbstractContextManager[Any]:
        """A transaction yielding a DB-API cursor: committed on exit, rolled back on any exception."""
        ...

    def fetch(self, sql: str, params: Sequence[object], binary: bool, within: Any = None) -> list[tuple[Any, ...]]:
        """Run a read; ``within``: the raw cursor of an open transaction to read inside it."""
        ...

    def ping(self) -> None:
        """Raise one of :attr:`errors` unless the database answers a trivial query now."""
        ...

    def describe(self, exc: BaseException) -> str:
        """The driver's message for ``exc`` (one of :attr:`errors`), readable whatever bytes it holds."""
        ...

    def error_class(self, exc: BaseException) -> type[StoreError]:
        """The anchormem error that ``exc`` (one of :attr:`errors`) is: :class:`StoreFullError` when the disk
        or the store's size limit is full, :class:`StoreUnavailableError` when the database cannot be
        reached, else :class:`StoreError`."""
        ...

    def scrub(self, full: bool) -> None: ...

    def integrity(self) -> list[str] | None:
        """The database's own check of its files (``["ok"]`` when whole), or ``None`` when it has none."""
        ...

    def close(self) -> None: ...


class Cursor:
    """A driver cursor that takes ``?`` placeholders."""

    def __init__(self, raw: Any, dialect: Dialect) -> None:
        self.raw = raw
        self.dialect = dialect

    def execute(self, sql: str, params: Sequence[object] | None = None) -> Any:
        if params is None:  # no parameters: the text goes to the driver as written (DDL)
            return self.raw.execute(sql)
        return self.raw.execute(self.dialect.sql(sql), params)

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> int:
        """Runs ``sql`` once per row; returns the rows changed in all."""
        if not rows:
            return 0
        self.raw.executemany(self.dialect.sql(sql), rows)
        return max(0, self.raw.rowcount)
