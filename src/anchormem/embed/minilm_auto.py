"""``minilm`` backend: onnxruntime (a core dependency) when the model loads there,
otherwise sentence-transformers (the ``torch`` extra). Both give the same vectors, so the choice is only
about speed; it is made once, on the first :meth:`embed` call."""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

from anchormem.embed.bundled import MiniLMIdentity
from anchormem.embed.minilm import MiniLMEmbedder
from anchormem.embed.onnx_runtime import OnnxMiniLMEmbedder
from anchormem.embed.protocol import Embedder, Vectors
from anchormem.errors import EmbeddingError

log = logging.getLogger(__name__)


class AutoMiniLMEmbedder(MiniLMIdentity):
    """all-MiniLM-L6-v2 on the fastest runtime that works here."""

    def __init__(self, batch_size: int = 64, cache_dir: str | Path | None = None) -> None:
        self._batch_size = batch_size
        self._cache_dir = cache_dir
        self._chosen: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def runtime(self) -> str | None:
        """``"onnxruntime"`` or ``"torch"`` once chosen, else ``None``."""
        if self._chosen is None:
            return None
        return "onnxruntime" if isinstance(self._chosen, OnnxMiniLMEmbedder) else "torch"

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._choose().embed(texts)

    def load(self) -> None:
        """Choose the runtime and load the model now, not on the first :meth:`embed`."""
        self._choose()

    def _choose(self) -> Embedder:
        with self._lock:
            if self._chosen is None:
                self._chosen = self._pick()
            return self._chosen

    def _pick(self) -> Embedder:
        if importlib.util.find_spec("onnxruntime") is not None:
            onnx = OnnxMiniLMEmbedder(batch_size=self._batch_size, cache_dir=self._cache_dir)
            try:
                onnx.load()
                return onnx
            except EmbeddingError as exc:
                if importlib.util.find_spec("sentence_transformers") is None:
                    raise  # no other runtime to fall back to: the onnxruntime error is the useful one
                log.warning("onnxruntime MiniLM unavailable (%s); using sentence-transformers", exc)
        return MiniLMEmbedder(batch_size=self._batch_size)
