"""Write all-MiniLM-L6-v2 (transformer + mean pooling + L2 normalisation) as one ONNX
file, once, into a per-user cache. The graph is built from the safetensors weights by
:mod:`anchormem.embed.bert_graph` (no torch). Safe under concurrency: each writer
writes its own temporary file and atomically renames it into place."""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from pathlib import Path

from anchormem.embed.bert_graph import INPUT_NAMES, OPSET, OUTPUT_NAME, build_model_bytes
from anchormem.embed.bundled import MODEL_NAME, package_version
from anchormem.errors import EmbeddingError

__all__ = [
    "DEFAULT_CACHE_DIR",
    "INPUT_NAMES",
    "OUTPUT_NAME",
    "CacheUnwritableError",
    "cached_onnx_path",
    "default_cache_dir",
    "ensure_onnx",
    "export_onnx",
]

DEFAULT_CACHE_DIR = Path("~/.cache/anchormem/onnx")
_FORMAT = 2  # bump when the graph changes (1: torch.onnx export; 2: built from the weights)
_EXPORT_LOCK = threading.Lock()


class CacheUnwritableError(EmbeddingError):
    """The ONNX cache directory cannot be written; the model can still be built in memory."""


def default_cache_dir() -> Path:
    return DEFAULT_CACHE_DIR.expanduser()


def cached_onnx_path(model_dir: Path, cache_dir: Path) -> Path:
    """Where the export of ``model_dir`` lives; the name changes with the weights."""
    try:
        weights = (model_dir / "model.safetensors").stat()
    except OSError as exc:
        raise EmbeddingError(f"cannot read the {MODEL_NAME} weights in {model_dir}: {exc}") from exc
    key = f"{_FORMAT}|{OPSET}|{package_version()}|{model_dir}|{weights.st_size}|{weights.st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir / f"{MODEL_NAME}-{digest}.onnx"


def ensure_onnx(model_dir: Path, cache_dir: Path | None = None) -> Path:
    """Return the path of the ONNX export of ``model_dir``, writing it first if needed."""
    target = cached_onnx_path(model_dir, cache_dir or default_cache_dir())
    if target.is_file():
        return target
    with _EXPORT_LOCK:  # one build per process; other processes race on the rename
        if not target.is_file():
            export_onnx(model_dir, target)
    return target


def export_onnx(model_dir: Path, target: Path) -> Path:
    """Write the model to ``target`` (via a temporary file and an atomic rename)."""
    data = build_model_bytes(model_dir)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise CacheUnwritableError(f"cannot write the ONNX cache in {target.parent}: {exc}") from exc
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except OSError as exc:
        raise CacheUnwritableError(f"cannot write the ONNX cache {target}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return target
