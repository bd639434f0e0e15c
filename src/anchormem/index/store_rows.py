"""Fact vectors that stay in the store: the rows of a scope searched through its HNSW index (``query.ann``).

A scope searched through its index is loaded without its fact matrix. Its snapshot's ``fact_vectors`` is a
:class:`StoreRows`: a read-only matrix to its users, as :class:`~anchormem.index.rows.Blocks` is, whose rows are
fetched from the store when asked for (the few a search needs: the selection's best anchors, the subjects' anchors)
and kept, and whose rows added by this process (an add grows the snapshot, :mod:`anchormem.index.evolve`) are held
as given. What a product with every row would cost is never paid by a search: the scores come from the index
(:func:`anchormem.index.ann.fact_scores`), a speaker's anchor sum from the database (:func:`row_sum`).
``m @ q`` still works, exactly, from the database (every row's product): nothing on the search path calls it.

:class:`StackedRows` is several parts one after another (a search covering a user and its agent and run scopes,
:mod:`anchormem.index.merge`), some held in the process and some in the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from anchormem.errors import StoreError
from anchormem.index.rows import Blocks, Matrix
from anchormem.index.shared_list import SharedList
from anchormem.model import Scope

Entry = str | npt.NDArray[np.float32]  # a fact id (its vector in the store) or a vector held here
KEEP_FETCHED = 50_000  # fetched rows a StoreRows keeps (its derived copies share them)


class VectorSource(Protocol):
    """What :class:`StoreRows` and the index search read from the store
    (:class:`~anchormem.store.postgres.PostgresStore`)."""

    def nearest_facts(self, scope: Scope, vector: npt.NDArray[np.floating], k: int) -> list[tuple[str, float]]: ...

    def fact_scores(self, scope: Scope, vector: npt.NDArray[np.floating], ids: Sequence[str]) -> dict[str, float]: ...

    def fact_vectors(self, scope: Scope, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]: ...

    def fact_vector_mean(self, scope: Scope, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], int]: ...


class StoreRows(Blocks):
    """One scope's fact vectors, row i that of the snapshot's ``facts[i]``, read from the store on demand."""

    __slots__ = ("_entries", "_fetched", "scope", "source")

    def __init__(
        self,
        source: VectorSource,
        scope: Scope,
        entries: Iterable[Entry],
        dim: int,
        fetched: dict[str, Matrix] | None = None,
    ) -> None:
        super().__init__((), dim)
        self.source = source
        self.scope = scope
        self._entries: SharedList[Entry] = SharedList.of(entries)
        self._fetched = fetched if fetched is not None else {}  # shared by the copies: a fact id names one vector

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def blocks(self) -> tuple[Matrix, ...]:
        raise StoreError("the vectors of a scope searched through its index stay in the store")

    def ids(self, rows: Iterable[int]) -> list[str | None]:
        """The fact id of each row (None for a row this process added, held here)."""
        return [e if isinstance(e, str) else None for e in (self._entries[int(r)] for r in rows)]

    def __getitem__(self, rows: npt.ArrayLike | slice) -> Matrix:
        index = np.arange(len(self))[rows] if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64).ravel()
        out = np.empty((index.size, self.dim), dtype=np.float32)
        entries = [self._entries[int(r)] for r in index]
        missing = sorted({e for e in entries if isinstance(e, str) and e not in self._fetched})
        if missing:
            found = self.source.fact_vectors(self.scope, missing)
            if len(self._fetched) + len(found) > KEEP_FETCHED:
                self._fetched.clear()
            self._fetched.update(found)
        zero = np.zeros(self.dim, dtype=np.float32)  # a fact deleted since the snapshot was made (a race)
        for i, entry in enumerate(entries):
            out[i] = self._fetched.get(entry, zero) if isinstance(entry, str) else entry
        return out

    def __matmul__(self, other: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Every row's product with the vector ``other``, exactly: from the database (slow; search does not use it)."""
        q = np.asarray(other, dtype=np.float32).ravel()
        remote = [e for e in self._entries if isinstance(e, str)]
        scores = self.source.fact_scores(self.scope, q, remote) if remote else {}
        out = np.empty(len(self), dtype=np.float32)
        for i, entry in enumerate(self._entries):
            out[i] = scores.get(entry, np.nan) if isinstance(entry, str) else float(np.dot(entry, q))
        return out

    def times_rows(self, left: npt.ArrayLike) -> npt.NDArray[np.float32]:
        rows = [self @ row for row in np.asarray(left, dtype=np.float32)]
        return np.stack(rows) if rows else np.zeros((0, len(self)), dtype=np.float32)

    def dense(self) -> Matrix:
        return self[np.arange(len(self))]

    def sum_rows(self, rows: Sequence[int]) -> npt.NDArray[np.float64]:
        """The sum of the vectors at ``rows`` in float64: the stored ones averaged by the database."""
        total = np.zeros(self.dim, dtype=np.float64)
        remote: list[str] = []
        for r in rows:
            entry = self._entries[int(r)]
            if isinstance(entry, str):
                remote.append(entry)
            else:
                total += entry
        if remote:
            mean, n = self.source.fact_vector_mean(self.scope, remote)
            if n:
                total += mean.astype(np.float64) * n
        return total

    def without(self, rows: Sequence[int]) -> StoreRows:
        if not len(rows):
            return self
        kept = self._entries.without(sorted({int(r) for r in rows}))
        return StoreRows(self.source, self.scope, kept, self.dim, self._fetched)

    def plus(self, values: npt.ArrayLike) -> StoreRows:
        added = np.asarray(values, dtype=np.float32)
        if added.ndim != 2 or not len(added):
            return self
        if self.dim and added.shape[1] != self.dim:
            raise ValueError(f"rows of dim {added.shape[1]} added to a matrix of dim {self.dim}")
        rows: list[Entry] = [np.ascontiguousarray(v) for v in added]
        return StoreRows(self.source, self.scope, self._entries.plus(rows), int(added.shape[1]), self._fetched)

    def take(self, rows: Sequence[int]) -> StoreRows:
        """The rows at ``rows`` as a StoreRows of their own (a filtered search's part), nothing fetched."""
        return StoreRows(self.source, self.scope, [self._entries[int(r)] for r in rows], self.dim, self._fetched)


class StackedRows(Blocks):
    """Several parts' rows one after another (a merged snapshot); never grown, only read."""

    __slots__ = ("parts",)

    def __init__(self, parts: Sequence[Blocks], dim: int) -> None:
        super().__init__((), dim)
        self.parts = tuple(parts)
        self._starts = np.concatenate(([0], np.cumsum([len(p) for p in self.parts], dtype=np.int64))).astype(np.int64)

    @property
    def blocks(self) -> tuple[Matrix, ...]:
        raise StoreError("the vectors of a scope searched through its index stay in the store")

    def offsets(self) -> list[tuple[int, Blocks]]:
        return [(int(self._starts[i]), part) for i, part in enumerate(self.parts)]

    def __getitem__(self, rows: npt.ArrayLike | slice) -> Matrix:
        index = np.arange(len(self))[rows] if isinstance(rows, slice) else np.asarray(rows, dtype=np.int64).ravel()
        out = np.empty((index.size, self.dim), dtype=np.float32)
        which = np.searchsorted(self._starts, index, side="right") - 1
        for p in np.unique(which):
            picked = which == p
            out[picked] = self.parts[int(p)][index[picked] - self._starts[p]]
        return out

    def __matmul__(self, other: npt.ArrayLike) -> npt.NDArray[np.float32]:
        return np.concatenate([p @ other for p in self.parts]) if self.parts else np.zeros(0, np.float32)

    def times_rows(self, left: npt.ArrayLike) -> npt.NDArray[np.float32]:
        return np.concatenate([p.times_rows(left) for p in self.parts], axis=1)

    def dense(self) -> Matrix:
        return self[np.arange(len(self))]

    def sum_rows(self, rows: Sequence[int]) -> npt.NDArray[np.float64]:
        total = np.zeros(self.dim, dtype=np.float64)
        index = np.asarray(rows, dtype=np.int64)
        which = np.searchsorted(self._starts, index, side="right") - 1
        for p in np.unique(which):
            local = [int(r) for r in index[which == p] - self._starts[p]]
            total += row_sum(self.parts[int(p)], local)
        return total

    def without(self, rows: Sequence[int]) -> Blocks:
        raise StoreError("a merged snapshot is not grown")

    def plus(self, values: npt.ArrayLike) -> Blocks:
        raise StoreError("a merged snapshot is not grown")


def lazy(vectors: object) -> bool:
    """Whether ``vectors`` (a snapshot's fact vectors) leave some rows in the store."""
    return isinstance(vectors, StoreRows | StackedRows)


def row_sum(vectors: Blocks | npt.NDArray[np.float32], rows: Sequence[int]) -> npt.NDArray[np.float64]:
    """The sum of the vectors at ``rows`` in float64 (a speaker's anchors, ``ScopeSnapshot.speaker_sums``)."""
    if isinstance(vectors, StoreRows | StackedRows):
        return vectors.sum_rows(rows)
    return vectors[rows].sum(axis=0, dtype=np.float64)


def take_rows(vectors: Blocks | npt.NDArray[np.float32], rows: Sequence[int]) -> Blocks | Matrix:
    """The vectors at ``rows`` (a filtered search's part): rows in the store stay there."""
    if isinstance(vectors, StoreRows):
        return vectors.take(rows)
    if isinstance(vectors, StackedRows):
        return _take_stacked(vectors, rows)
    return vectors[rows]


def _take_stacked(vectors: StackedRows, rows: Sequence[int]) -> StackedRows:
    index = np.asarray(rows, dtype=np.int64)
    parts: list[Blocks] = []
    for start, part in vectors.offsets():
        local = [int(r) - start for r in index if start <= r < start + len(part)]
        if local:
            parts.append(Blocks.of(take_rows(part, local)))
    return StackedRows(parts, vectors.dim)
