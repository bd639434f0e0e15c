"""What a store may offer beyond :class:`~anchormem.store.protocol.Store`, declared as protocols.

A backend implements :class:`Store`; each protocol here is optional. The layers above check for one by type
(``isinstance(store, ChangeFeed)``), never by looking up a method by name, and work without it, only slower:

- :class:`ChangeJournal` and :class:`ChangeFeed`: what changed in a scope between two versions, from this
  process's writes (the journal) and from every process's (the store's log). A search then evolves the
  snapshot it holds (:mod:`anchormem.index.evolve`) instead of loading the scope whole.
- :class:`VersionStamps`: a nonce per scope version and the schema's migration count, which date a snapshot
  file beside the store (:mod:`anchormem.index.snapshot_files`); without them no file is trusted.
- :class:`AnnIndex`: an approximate-nearest-neighbour index of a scope's facts (PostgreSQL's HNSW through
  pgvector). A big scope is then searched through it with its vectors left in the store
  (:mod:`anchormem.index.ann`).
- :class:`Located` (where the store is: a file, or a URL), :class:`ServedAt` (a server store's URL) and
  :class:`Checkable` (a read-only check of the
  store's invariants, ``anchormem maintenance check``).

:class:`~anchormem.store.sql.core.SQLStore` (SQLite and PostgreSQL) offers every one but :class:`AnnIndex`,
which is :class:`~anchormem.store.postgres.PostgresStore`'s. The store suite (``tests/test_store_suite.py``)
checks each backend against each protocol it claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from anchormem.model import Scope

if TYPE_CHECKING:
    from anchormem.store.journal import Change, Journal
    from anchormem.store.sql.check import CheckReport


@runtime_checkable
class ChangeJournal(Protocol):
    """A store that notes what this process's committed writes changed (:mod:`anchormem.store.journal`)."""

    @property
    def journal(self) -> Journal: ...


@runtime_checkable
class ChangeFeed(Protocol):
    """A store that keeps a log of the ids every process's writes added and removed."""

    def changes_since(self, scope: Scope, version: int, until: int) -> list[Change] | None:
        """The changes that took ``scope`` from ``version`` to ``until``; None when the log does not hold them
        all, or one of them forgot messages (a snapshot is then loaded whole)."""
        ...


@runtime_checkable
class VersionStamps(Protocol):
    """A store that can date a snapshot file: a random nonce per scope version, and its schema's version."""

    def version_nonce(self, scope: Scope, version: int, create: bool = False) -> str | None: ...

    @property
    def schema_version(self) -> int:
        """How many migrations the store's schema holds."""
        ...


@runtime_checkable
class AnnIndex(Protocol):
    """A store that indexes a scope's fact vectors for approximate nearest-neighbour search and scores facts
    by id (so a search need not hold the scope's fact matrix)."""

    def ann_indexed(self, scope: Scope, dim: int | None = None) -> bool:
        """Whether ``scope`` has a usable index (of vectors of ``dim``; None: the store's dimension)."""
        ...

    def index_big_scopes(self, min_facts: int = ..., **build: Any) -> dict[str, list[Scope]]:
        """Build the indexes of scopes of ``min_facts`` facts and more, drop those of smaller ones."""
        ...

    def nearest_facts(self, scope: Scope, vector: npt.NDArray[np.floating], k: int) -> list[tuple[str, float]]: ...

    def fact_scores(self, scope: Scope, vector: npt.NDArray[np.floating], ids: Sequence[str]) -> dict[str, float]: ...

    def fact_vectors(self, scope: Scope, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]: ...

    def fact_vector_mean(self, scope: Scope, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], int]: ...


@runtime_checkable
class Located(Protocol):
    """A store that says where it is: a file path, or a URL without its password."""

    @property
    def path(self) -> str: ...


@runtime_checkable
class ServedAt(Protocol):
    """A store on a database server: the URL it was opened with."""

    url: str


@runtime_checkable
class Checkable(Protocol):
    """A store that can check itself: the database's own check, then the store's invariants (reads only)."""

    def check(self) -> CheckReport: ...
