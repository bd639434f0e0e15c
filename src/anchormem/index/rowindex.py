"""Record id -> row, kept cheap for snapshots that grow (:mod:`anchormem.index.evolve`).

Each id gets a sequence number once, in order of addition, in a dictionary shared by a snapshot and the
snapshots grown from it (it only ever gains ids; the numbers of ids that were removed stay, unused). A snapshot
holds the sorted sequence numbers of its own rows, so an id's row is a binary search, and growing the index
costs an array of the rows (``numpy``), not a copy of the dictionary. An id that a snapshot does not hold
(added later, or removed) is not found in it; an id removed and added again gets a new number, so a snapshot
older than that no longer finds it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt


class _Numbers:
    """The shared id -> sequence number dictionary and the next number."""

    def __init__(self) -> None:
        self.of: dict[str, int] = {}
        self.lock = threading.Lock()

    def __getstate__(self) -> dict[str, int]:  # a snapshot file (``query.snapshot_file``) keeps the numbers
        return self.of

    def __setstate__(self, state: dict[str, int]) -> None:
        self.of = state
        self.lock = threading.Lock()


class RowIndex(Mapping[str, int]):
    """A read-only mapping of a snapshot's record ids to their rows (see the module docstring)."""

    def __init__(self, numbers: _Numbers, seqs: npt.NDArray[np.int64], ids: Sequence[str]) -> None:
        self._numbers = numbers
        self._seqs = seqs  # ascending: row i's sequence number
        self._ids = ids  # the snapshot's records' ids by row (for iteration)

    @classmethod
    def of(cls, ids: Sequence[str]) -> RowIndex:
        """The index of ``ids`` by row (an id held twice is found at its last row, as in a dict)."""
        numbers = _Numbers()
        numbers.of = {rid: i for i, rid in enumerate(ids)}
        return cls(numbers, np.arange(len(ids), dtype=np.int64), ids)

    def changed(self, removed: Sequence[int], added: Sequence[str], ids: Sequence[str]) -> RowIndex:
        """The index of rows ``removed`` taken out and ``added`` appended (``ids``: the new rows' ids)."""
        seqs = np.delete(self._seqs, np.asarray(removed, dtype=np.int64)) if len(removed) else self._seqs
        numbers = self._numbers
        with numbers.lock:
            start = max(len(numbers.of), int(self._seqs[-1]) + 1 if len(self._seqs) else 0)
            fresh = np.arange(start, start + len(added), dtype=np.int64)
            for rid, seq in zip(added, fresh.tolist(), strict=True):
                numbers.of[rid] = seq
        return RowIndex(numbers, np.concatenate([seqs, fresh]), ids)

    def rows_of(self, ids: Sequence[str]) -> npt.NDArray[np.int64]:
        """The rows of ``ids`` (-1 for an id this snapshot does not hold), in one pass."""
        of = self._numbers.of
        seqs = np.asarray([of.get(rid, -1) for rid in ids], dtype=np.int64)
        if not len(self._seqs):
            return np.full(len(seqs), -1, dtype=np.int64)
        rows = np.minimum(np.searchsorted(self._seqs, seqs), len(self._seqs) - 1)
        return np.where((seqs >= 0) & (self._seqs[rows] == seqs), rows, -1).astype(np.int64)

    def __getitem__(self, rid: str) -> int:
        seq = self._numbers.of[rid]
        row = int(np.searchsorted(self._seqs, seq))
        if row < len(self._seqs) and self._seqs[row] == seq:
            return row
        raise KeyError(rid)

    def __contains__(self, rid: object) -> bool:
        if not isinstance(rid, str):
            return False
        try:
            self[rid]
        except KeyError:
            return False
        return True

    def __len__(self) -> int:
        return len(self._seqs)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._ids))
