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

An agent's add re-cuts the session's last window, so most facts an add links are the facts the previous add
linked, their texts (and vectors) unchanged under new ids. The index remembers what it found for each query
vector (:class:`_Memo`: the rows above tau by a serial number each row keeps for life, and the last serial
then given out), and a later generation of it answers the same vector from that: the remembered rows still
present, plus an exact pass over the rows added since (a few dozen), instead of a bound pass over every row.
The answer is the same rows with the same products (each row's product is computed the same way, its vector
never changes), so linking builds the same clusters. A memo serves one line of generations: :meth:`changed`
hands it to the new index, and an older one (or a second index made from it) no longer reads it, so every
row a generation holds with a serial up to the remembered one was there when the answer was found.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
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
MEMO_SIZE = 4096  # query vectors remembered per line of index generations
MEMO_TAIL = 4096  # at most this many rows added since an answer was remembered: else a bound pass again


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
        scored = _scored(blocks, queries, blocks.times_rows(queries), tau)
        out += [_without(row, found) for row, found in zip(part, scored, strict=True)]
    return out


def _scored(vectors: Blocks, queries: FloatArray, bound: FloatArray, tau: float) -> Found:
    """The rows of ``bound`` above ``tau - SLACK`` scored exactly: one row's dot product (``einsum``), the
    same whatever matrix or block holds it; those above ``tau`` (the query's own row among them)."""
    flat = np.flatnonzero(bound > tau - SLACK)  # row-major: candidates ascending per query (5x np.nonzero's speed)
    at, cand = np.divmod(flat, max(1, bound.shape[1]))
    sims = _products(queries[at], vectors[cand])
    cuts = np.searchsorted(at, np.arange(len(queries) + 1))
    out: Found = []
    for j in range(len(queries)):
        c, s = cand[cuts[j] : cuts[j + 1]], sims[cuts[j] : cuts[j + 1]]
        keep = s > tau
        out.append((c[keep].astype(np.int64), s[keep].astype(np.float32)))
    return out


def _products(left: FloatArray, right: FloatArray) -> FloatArray:
    """Each row of ``left`` times the same row of ``right``: the one way every exact product here is made."""
    return np.einsum("ij,ij->i", left, right) if len(right) else np.zeros(0, np.float32)


def _without(row: int, found: tuple[IntArray, FloatArray]) -> tuple[IntArray, FloatArray]:
    rows, sims = found
    keep = rows != row
    return rows[keep], sims[keep]


class _Memo:
    """What one line of index generations found per query vector (see the module docstring): a key of the vector
    and tau -> the serials of the rows above tau (ascending), their products, and the last serial given out
    then. The index that may read it is ``owner``."""

    __slots__ = ("found", "lock", "owner")

    def __init__(self, owner: object) -> None:
        self.found: OrderedDict[bytes, tuple[IntArray, FloatArray, int]] = OrderedDict()
        self.lock = threading.Lock()
        self.owner = owner

    def get(self, owner: object, key: bytes) -> tuple[IntArray, FloatArray, int] | None:
        with self.lock:
            return self.found.get(key) if self.owner is owner else None

    def put(self, owner: object, key: bytes, entry: tuple[IntArray, FloatArray, int]) -> None:
        with self.lock:
            if self.owner is not owner:
                return
            self.found[key] = entry
            self.found.move_to_end(key)
            while len(self.found) > MEMO_SIZE:
                self.found.popitem(last=False)

    def hand_to(self, owner: object, heir: object) -> _Memo:
        """This memo for ``heir`` if ``owner`` holds it (``owner`` no longer does), else a new one."""
        with self.lock:
            if self.owner is owner:
                self.owner = heir
                return self
        return _Memo(heir)


def _key(query: FloatArray, tau: float) -> bytes:
    """A query vector and tau, hashed (the memo keeps no vectors)."""
    data = np.ascontiguousarray(query, dtype=np.float32).tobytes() + np.float64(tau).tobytes()
    return hashlib.blake2b(data, digest_size=16).digest()


class FactNeighbours:
    """The bound rows of a snapshot's fact vectors (see the module docstring); immutable but for its memo. It
    holds no vectors: :meth:`above` is given the matrix it was built from, as changed since by the same rows."""

    __slots__ = ("_basis", "_bounds", "_memo", "_next", "_serials")

    def __init__(
        self, basis: FloatArray, bounds: Blocks, serials: IntArray | None = None, next_serial: int = 0
    ) -> None:
        self._basis = basis
        self._bounds = bounds
        self._serials = np.arange(len(bounds), dtype=np.int64) if serials is None else serials  # ascending
        self._next = max(next_serial, int(self._serials[-1]) + 1 if len(self._serials) else 0)  # never given twice
        self._memo = _Memo(self)

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
        kept = np.delete(self._serials, np.asarray(gone, dtype=np.int64)) if len(gone) else self._serials
        serials = np.concatenate([kept, np.arange(self._next, self._next + len(rows), dtype=np.int64)])
        bounds = self._bounds.without(gone).plus(_bound_rows(rows, self._basis))
        heir = FactNeighbours(self._basis, bounds, serials, self._next + len(rows))
        heir._memo = self._memo.hand_to(self, heir)
        return heir

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
            keys = [_key(q, tau) for q in queries]
            found: list[tuple[IntArray, FloatArray] | None] = [
                self._remembered(blocks, q, k, tau) for q, k in zip(queries, keys, strict=True)
            ]
            todo = [j for j, f in enumerate(found) if f is None]
            if todo:
                bound = self._bounds.times_rows(_bound_rows(queries[todo], self._basis))
                for j, got in zip(todo, _scored(blocks, queries[todo], bound, tau), strict=True):
                    found[j] = got
                    self._memo.put(self, keys[j], (self._serials[got[0]], got[1], self._next - 1))
            out += [_without(int(row), f) for row, f in zip(part, found, strict=True) if f is not None]
        return out

    def _remembered(
        self, blocks: Blocks, query: FloatArray, key: bytes, tau: float
    ) -> tuple[IntArray, FloatArray] | None:
        """What a pass would find above ``tau`` for ``query`` (its own row among it), from the memo: the rows
        remembered that are still here, and those added since scored exactly. None: not remembered (or too
        many rows came since)."""
        entry = self._memo.get(self, key)
        if entry is None:
            return None
        serials, sims, last = entry
        n = len(self._serials)
        since = int(np.searchsorted(self._serials, last, side="right"))
        if n - since > MEMO_TAIL:
            return None
        at = np.searchsorted(self._serials, serials)
        here = at < n
        here[here] = self._serials[at[here]] == serials[here]
        fresh = np.arange(since, n, dtype=np.int64)
        scores = _products(np.repeat(query[None, :], fresh.size, axis=0), blocks[fresh])
        above = scores > tau
        rows = np.concatenate([at[here], fresh[above]]).astype(np.int64)
        found = (rows, np.concatenate([sims[here], scores[above]]).astype(np.float32))
        self._memo.put(self, key, (self._serials[rows], found[1], self._next - 1))
        return found


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
