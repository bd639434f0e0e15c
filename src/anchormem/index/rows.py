"""A matrix of vectors held as a few immutable blocks of rows, so a memory that grows by a few rows (an agent's
add) makes a new matrix without copying the old rows.

A snapshot's fact and event vectors are :class:`Blocks`. Appending rows adds a block; removing rows rewrites
only the blocks that held them; blocks are merged as in a binary counter (the last two whenever the last is at
least half the size of the one before), so a row is copied O(log n) times over the life of a memory and a
matrix of n rows has O(log n) blocks. The arrays are never written after they are made: an older matrix that
a search still reads is not changed by a newer one made from it.

A product with a vector is computed block by block with ``einsum``, one row's dot product the same way
whatever block holds it (BLAS chooses its kernel by the number of rows, so ``@`` would not), so a grown
matrix scores exactly as a matrix loaded whole.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
ONE_THREAD = 1 << 18  # multiply-adds OpenBLAS computes on one thread (65,536 x its GEMM_MULTITHREAD_THRESHOLD, 4)
MIN_PIECE = 24  # rows: a smaller piece costs more in calls than the threads' waiting (256 queries: 2x slower)


def _as_matrix(values: npt.ArrayLike, dim: int | None = None) -> Matrix:
    out = np.asarray(values, dtype=np.float32)
    if out.ndim == 1 and out.size == 0:
        out = out.reshape(0, dim or 0)
    return out


class Blocks:
    """Rows of float32 vectors in immutable blocks (see the module docstring); a read-only matrix to its users:
    ``shape``, ``len()``, ``m @ q``, ``m[rows]``, ``np.asarray(m)``."""

    __slots__ = ("_blocks", "_starts", "dim")

    def __init__(self, blocks: Sequence[Matrix], dim: int) -> None:
        self._blocks = tuple(b for b in blocks if len(b))
        self.dim = dim
        sizes = [len(b) for b in self._blocks]
        self._starts = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))).astype(np.int64)

    @classmethod
    def of(cls, values: npt.ArrayLike | Blocks) -> Blocks:
        """``values`` as blocks (a 2-d array becomes one block; blocks are returned as they are)."""
        if isinstance(values, Blocks):
            return values
        matrix = _as_matrix(values)
        dim = int(matrix.shape[1]) if matrix.ndim == 2 else 0
        return cls([matrix] if matrix.ndim == 2 else [], dim)

    # -- reading ----------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self._starts[-1])

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), self.dim)

    @property
    def ndim(self) -> int:
        return 2

    @property
    def size(self) -> int:
        return len(self) * self.dim

    @property
    def blocks(self) -> tuple[Matrix, ...]:
        return self._blocks

    def __matmul__(self, other: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """``rows @ other``: a vector per row for a vector ``other``, a matrix for a matrix."""
        right = np.asarray(other, dtype=np.float32)
        if not self._blocks:
            return np.zeros((0, *right.shape[1:]), dtype=np.float32)
        if right.ndim == 1:  # einsum: a row's dot product the same in any block (BLAS picks kernels by size)
            return np.concatenate([np.einsum("ij,j->i", b, right) for b in self._blocks])
        return np.concatenate([b @ right for b in self._blocks])

    def times_rows(self, left: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """``left @ rows.T`` (left: a matrix of vectors), computed as ``rows @ left.T`` and returned transposed
        (a view). A few queries are multiplied in pieces of rows small enough for OpenBLAS to keep each product
        on one thread (:data:`ONE_THREAD`): on a shared machine its threads wait for each other, and the
        linking bound of an add (2-7 queries over 179k rows of 65) took 2-48 ms as one threaded product
        against 2.6-5.8 ms in pieces. Many queries (a piece under :data:`MIN_PIECE` rows) stay one product per
        block, where the threads pay. Any split gives the same products up to float32 rounding."""
        matrix = np.asarray(left, dtype=np.float32)
        right = np.ascontiguousarray(matrix.T)
        out = np.empty((len(self), len(matrix)), dtype=np.float32)
        step = ONE_THREAD // max(1, matrix.size)
        for start, block in zip(self._starts.tolist(), self._blocks, strict=False):
            if step < MIN_PIECE:
                np.matmul(block, right, out=out[start : start + len(block)])
                continue
            for at in range(0, len(block), step):
                part = block[at : at + step]
                np.matmul(part, right, out=out[start + at : start + at + len(part)])
        return out.T

    def __getitem__(self, rows: npt.ArrayLike | slice) -> Matrix:
        """The given rows (an array or list of row numbers, or a slice), as one array."""
        if isinstance(rows, slice):
            rows = np.arange(len(self))[rows]
        index = np.asarray(rows, dtype=np.int64).ravel()
        if len(self._blocks) == 1:
            return self._blocks[0][index]
        out = np.empty((index.size, self.dim), dtype=np.float32)
        if index.size == 0:
            return out
        if (index < 0).any() or (index >= len(self)).any():
            raise IndexError(f"row out of range for {len(self)} rows")
        which = np.searchsorted(self._starts, index, side="right") - 1
        for b in np.unique(which):
            picked = which == b
            out[picked] = self._blocks[b][index[picked] - self._starts[b]]
        return out

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: object = None) -> Matrix:
        whole = self.dense()
        return whole if dtype is None else whole.astype(dtype)

    def dense(self) -> Matrix:
        """Every row in one array (a copy unless there is one block)."""
        if len(self._blocks) == 1:
            return self._blocks[0]
        if not self._blocks:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(self._blocks)

    # -- a new matrix ----------------------------------------------------------------------------------------
    def without(self, rows: Sequence[int]) -> Blocks:
        """These rows removed (the others keep their order). A block that held some keeps the rows before the
        first of them as a view (blocks are never written) and copies only the rows after it, so removing
        the latest rows of a big block (an add re-cutting the last window) costs what it removes."""
        if not len(rows):
            return self
        index = np.unique(np.asarray(rows, dtype=np.int64))
        which = np.searchsorted(self._starts, index, side="right") - 1
        blocks: list[Matrix] = []
        for b, block in enumerate(self._blocks):
            local = index[which == b] - self._starts[b]
            if not local.size:
                blocks.append(block)
                continue
            first = int(local[0])
            blocks += [block[:first], np.delete(block[first:], local - first, axis=0)]
        return Blocks(blocks, self.dim)

    def plus(self, values: npt.ArrayLike) -> Blocks:
        """These rows appended (in order), merging blocks as a binary counter does."""
        added = _as_matrix(values, self.dim)
        if added.ndim != 2 or not len(added):
            return self
        if self.dim and added.shape[1] != self.dim:
            raise ValueError(f"rows of dim {added.shape[1]} added to a matrix of dim {self.dim}")
        blocks = [*self._blocks, added]
        while len(blocks) > 1 and 2 * len(blocks[-1]) >= len(blocks[-2]):
            last = blocks.pop()
            blocks[-1] = np.concatenate([blocks[-1], last])
        return Blocks(blocks, int(added.shape[1]))
