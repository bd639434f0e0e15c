"""Small helpers shared by the embedders: L2 normalisation and batching."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from anchormem.embed.protocol import Vectors

T = TypeVar("T")


def l2_normalize(vectors: npt.ArrayLike) -> Vectors:
    """Return ``vectors`` as a float32 matrix with unit-length rows (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(matrix), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: Vectors = (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return out


def empty_vectors(dim: int) -> Vectors:
    """The result of embedding no texts: an empty ``(0, dim)`` float32 matrix."""
    return np.zeros((0, dim), dtype=np.float32)


def batches(texts: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``texts`` holding at most ``size`` items each."""
    step = max(1, size)
    for start in range(0, len(texts), step):
        yield texts[start : start + step]
