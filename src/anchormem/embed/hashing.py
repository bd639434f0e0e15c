"""A tiny deterministic embedder for tests: signed feature hashing of lowercase words
and their character trigrams. Texts sharing words get a high cosine; unrelated texts
land near zero. No model, no randomness, microseconds per text."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

import numpy as np

from anchormem.embed.protocol import Vectors
from anchormem.embed.vectors import empty_vectors, l2_normalize
from anchormem.errors import ConfigError

_WORD = re.compile(r"\w+", re.UNICODE)
_TRIGRAM_WEIGHT = 0.5
_EMPTY = "\x00empty"


class HashEmbedder:
    """Bag of hashed words (+ char trigrams), ``dim`` buckets, L2-normalised float32."""

    def __init__(self, dim: int = 64) -> None:
        if dim < 1:
            raise ConfigError(f"hash embedder dim must be positive, got {dim}")
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return empty_vectors(self._dim)
        matrix = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = zlib.crc32(feature.encode("utf-8"))
                sign = 1.0 if digest & 1 else -1.0
                matrix[row, (digest >> 1) % self._dim] += sign * weight
        return l2_normalize(matrix)


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(text.lower())
    if not words:
        return [(_EMPTY, 1.0)]
    features: list[tuple[str, float]] = []
    for word in words:
        features.append(("w:" + word, 1.0))
        padded = f"#{word}#"
        features.extend(("t:" + padded[i : i + 3], _TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
    return features
