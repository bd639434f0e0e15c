"""An in-process LRU cache for single-text embeddings (queries repeat)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from anchormem.embed.protocol import Embedder, Vectors


class CachedEmbedder:
    """Wraps an :class:`Embedder`; calls with exactly one text are served from an LRU
    cache of ``maxsize`` entries. Batch calls (ingestion) pass straight through, so
    they neither pay for nor flush the cache."""

    def __init__(self, inner: Embedder, maxsize: int = 1024) -> None:
        self.inner = inner
        self.name = inner.name  # an embedder's name is fixed (its dimension may need a model or server)
        self._maxsize = max(1, maxsize)
        self._entries: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) != 1:
            return self.inner.embed(texts)
        text = texts[0]
        with self._lock:
            cached = self._entries.get(text)
            if cached is not None:
                self._entries.move_to_end(text)
                self.hits += 1
                return cached.copy()
            self.misses += 1
        vector = self.inner.embed([text])
        with self._lock:
            self._entries[text] = vector.copy()
            self._entries.move_to_end(text)
            while len(self._entries) > self._maxsize:
                self._entries.popitem(last=False)
        return vector

    def load(self) -> None:
        """Load the inner embedder's model now (if it loads lazily), not on the first :meth:`embed`."""
        load = getattr(self.inner, "load", None)
        if callable(load):
            load()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
