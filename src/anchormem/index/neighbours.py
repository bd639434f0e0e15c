"""The facts whose cosine with a given fact exceeds τ, for linking the event graph (paper §4.2), found without
reading every vector in full: an exact filter, so linking builds the same clusters as a pass over all rows.

Every vector x is split by an orthonormal basis P of k directions into its part in their span and the rest:
x·q = (Pᵀx)·(Pᵀq) + (x − PPᵀx)·(q − PPᵀq) ≤ (Pᵀx)·(Pᵀq) + r(x)·r(q), with r(x) = ‖x − PPᵀx‖ (Cauchy–Schwarz).
So each row is kept as k + 1 numbers, [Pᵀx, r(x)], and one product of those rows with the query's
[Pᵀq, r(q)] bounds every cosine from above. Rows whose bound is at most τ cannot be neighbours; the others
(about 0.2 % of a 179k-fact LoCoMo memory at τ = 0.85, k = 64) are scored exactly. The basis is the first k
principal directions of a sample of the rows: any orthonormal basis keeps the bound (and the result) exact,
a good one only makes the filter sharper, so rows added later are projected on the same basis. The pass over
the bound rows still grows with the memory, at (k + 1) / 384 of the full vectors' cost (k = 64: 47 MB at
179k facts against 275 MB); a true ANN index would not, but it would change which clusters are built.

The bound rows sit in :class:`~anchormem.index.rows.Blocks` beside the snapshot's fact vectors and change
with them (:meth:`FactNeighbours.changed`, from :mod:`anchormem.index.evolve`): removed rows leave both at
once, and a forgotten scope is loaded again, its index built anew from what is left. A candidate's exact score
is one row's dot product (``einsum``), the same whatever block holds it, and :func:`exact_above` (the pass over
all rows, used below :data:`MIN_ROWS` facts) scores its rows the same way, so both give the same neighbours
with the same scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from anchormem.index.rows import Blocks

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]
Found = list[tuple[IntArray, FloatArray]]  # per query row: neighbour rows (ascending) and their cosines
Near = Callable[[Sequence[int], float], Found]  # seed rows, tau -> each seed's rows above tau and cosines

DIRECTIONS = 64  # k: the bound rows are k + 1 numbers (1/6 of MiniLM's 384)
SAMPLE = 5_000  # rows whose covariance gives the basis
MIN_ROWS = 20_000  # below this many rows, an exact pass over all rows (no index)
SLACK = 1e-4  # float32 rounding of the bound's product: a row is scored exactly if its bound > tau - SLACK
_PAD = 1e-4  # added under the residual's square root, so a rounded residual is never too small
_BLOCK = 256  # query rows per product
_CHUNK = 8192  # rows projected at a time when building


def _query_mask(n: int, rows: IntArray) -> None:
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise IndexError(f"row out of range for {n} rows")


def exact_above(vectors: Blocks | FloatArray, rows: Sequence[int], tau: float) -> Found:
    """The rows whose product with each of ``rows`` exceeds ``tau`` (the row itself left out): a pass over
    every row, its products rounded as :meth:`FactNeighbours.above` rounds them."""
    index = np.asarray(rows, dtype=np.int64)
    _query_mask(len(vectors), index)
    blocks = Blocks.of(vectors)
    out: Found = []
    for start in range(0, index.size, _BLOCK):
        part = index[start : start + _BLOCK]
        queries = blocks[part]
        out += _scored(blocks, part, queries, blocks.times_rows(queries), tau)
    return out


def _scored(vectors: Blocks, part: IntArray, queries: FloatArray, bound: FloatArray, tau: float) -> Found:
    """The rows of ``bound`` above ``tau - SLACK`` scored exactly: one row's dot product (``einsum``), the
    same whatever matrix or block holds it; those above ``tau``, the query row left out."""
    flat = np.flatnonzero(bound > tau - SLACK)  # row-major: candidates ascending per query (5x np.nonzero's speed)
    at, cand = np.divmod(flat, max(1, bound.shape[1]))
    sims = np.einsum("ij,ij->i", queries[at], vectors[cand]) if cand.size else np.zeros(0, np.float32)
    cuts = np.searchsorted(at, np.arange(len(part) + 1))
    out: Found = []
    for j, i in enumerate(part):
        c, s = cand[cuts[j] : cuts[j + 1]], sims[cuts[j] : cuts[j + 1]]
        keep = (s > tau) & (c != i)
        out.append((c[keep].astype(np.int64), s[keep].astype(np.float32)))
    return out


class FactNeighbours:
    """The bound rows of a snapshot's fact vectors (see the module docstring); immutable. It holds no vectors:
    :meth:`above` is given the matrix it was built from, as changed since by the same rows."""

    __slots__ = ("_basis", "_bounds")

    def __init__(self, basis: FloatArray, bounds: Blocks) -> None:
        self._basis = basis
        self._bounds = bounds

    @classmethod
    def build(cls, vectors: Blocks | FloatArray, directions: int = DIRECTIONS, seed: int = 0) -> FactNeighbours:
        """The index of ``vectors``, its basis from the covariance of a sample of them."""
        blocks = Blocks.of(vectors)
        n, dim = len(blocks), blocks.dim
        k = max(0, min(directions, dim - 1, n))
        if k:
            picked = np.sort(np.random.default_rng(seed).choice(n, size=min(n, SAMPLE), replace=False))
            sample = blocks[picked].astype(np.float64)
            _, vecs = np.linalg.eigh(sample.T @ sample)  # ascending eigenvalues
            basis = np.ascontiguousarray(vecs[:, ::-1][:, :k], dtype=np.float32)
        else:
            basis = np.zeros((dim, 0), dtype=np.float32)
        return cls(basis, Blocks([_bound_rows(b, basis) for b in blocks.blocks], k + 1))

    def __len__(self) -> int:
        return len(self._bounds)

    def changed(self, gone: Sequence[int], added: FloatArray) -> FactNeighbours:
        """The index with the rows ``gone`` removed and the vectors ``added`` appended."""
        rows = np.asarray(added, dtype=np.float32).reshape(-1, self._basis.shape[0])
        return FactNeighbours(self._basis, self._bounds.without(gone).plus(_bound_rows(rows, self._basis)))

    def above(self, vectors: Blocks | FloatArray, rows: Sequence[int], tau: float) -> Found:
        """The rows of ``vectors`` (the matrix this index describes) whose product with each of ``rows``
        exceeds ``tau`` (the row itself left out), with their products: what :func:`exact_above` finds."""
        blocks = Blocks.of(vectors)
        if len(blocks) != len(self):
            raise ValueError(f"an index of {len(self)} rows asked about {len(blocks)} vectors")
        index = np.asarray(rows, dtype=np.int64)
        _query_mask(len(self), index)
        out: Found = []
        for start in range(0, index.size, _BLOCK):
            part = index[start : start + _BLOCK]
            queries = blocks[part]
            bound = self._bounds.times_rows(_bound_rows(queries, self._basis))
            out += _scored(blocks, part, queries, bound, tau)
        return out


def _bound_rows(rows: FloatArray, basis: FloatArray) -> FloatArray:
    """[Pᵀx, r(x)] for each row x (r: the residual's norm, rounded up), a few thousand rows at a time."""
    rows = np.asarray(rows, dtype=np.float32)
    out = np.empty((len(rows), basis.shape[1] + 1), dtype=np.float32)
    for start in range(0, len(rows), _CHUNK):
        part = rows[start : start + _CHUNK]
        inside = part @ basis
        left = np.einsum("ij,ij->i", part, part).astype(np.float64) - np.einsum("ij,ij->i", inside, inside)
        out[start : start + len(part), :-1] = inside
        out[start : start + len(part), -1] = np.sqrt(np.maximum(left, 0.0) + _PAD)
    return out
