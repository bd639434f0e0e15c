"""Export all-MiniLM-L6-v2 (transformer + mean pooling + L2 normalisation) to one ONNX
file, once, into a per-user cache. Safe under concurrency: each exporter writes its
own temporary file and atomically renames it into place."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

from anchormem.embed.bundled import MODEL_NAME, package_version
from anchormem.embed.minilm import quiet_transformers
from anchormem.errors import EmbeddingError

DEFAULT_CACHE_DIR = Path("~/.cache/anchormem/onnx")
OPSET = 17
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "sentence_embedding"
_FORMAT = 1  # bump when the exported graph changes
_EXPORT_LOCK = threading.Lock()


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
    """Return the path of the ONNX export of ``model_dir``, exporting it first if needed."""
    target = cached_onnx_path(model_dir, cache_dir or default_cache_dir())
    if target.is_file():
        return target
    with _EXPORT_LOCK:  # torch's exporter is not thread-safe; other processes race on the rename
        if not target.is_file():
            export_onnx(model_dir, target)
    return target


def export_onnx(model_dir: Path, target: Path) -> Path:
    """Export the model to ``target`` (via a temporary file and an atomic rename)."""
    _check_pooling(model_dir)
    try:
        import torch
    except ImportError as exc:
        raise EmbeddingError("exporting MiniLM to ONNX needs torch: pip install torch (a CPU build)") from exc
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
        os.close(fd)
    except OSError as exc:
        raise EmbeddingError(f"cannot write the ONNX cache in {target.parent}: {exc}") from exc
    tmp = Path(tmp_name)
    try:
        module = _pooled_model(model_dir)
        dummy = _dummy_inputs(torch)
        axes = {name: {0: "batch", 1: "sequence"} for name in INPUT_NAMES}
        axes[OUTPUT_NAME] = {0: "batch"}
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                dummy,
                str(tmp),
                input_names=list(INPUT_NAMES),
                output_names=[OUTPUT_NAME],
                dynamic_axes=axes,
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
                external_data=False,
            )
        os.replace(tmp, target)
    except EmbeddingError:
        raise
    except Exception as exc:  # torch.onnx raises many kinds; translate all at this boundary
        raise EmbeddingError(f"exporting {MODEL_NAME} to ONNX ({target}) failed: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _check_pooling(model_dir: Path) -> None:
    try:
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbeddingError(f"cannot read the pooling config of {model_dir}: {exc}") from exc
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v}
    if modes != {"pooling_mode_mean_tokens"}:
        raise EmbeddingError(f"{model_dir}: expected mean pooling only, found {sorted(modes)}")


def _pooled_model(model_dir: Path) -> Any:
    """The transformer followed by masked mean pooling and L2 normalisation, as
    sentence-transformers' Transformer → Pooling(mean) → Normalize pipeline computes it."""
    import torch
    from transformers import AutoModel

    with quiet_transformers():
        # eager attention traces into plain ONNX ops with the padding mask kept as a real input
        bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager")
    bert.eval()

    class PooledMiniLM(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            tokens = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            summed = (tokens * mask).sum(dim=1)
            counts = mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2.0, dim=1)

    return PooledMiniLM().eval()


def _dummy_inputs(torch: Any) -> tuple[Any, Any, Any]:
    # two rows of different lengths, so the traced graph sees real padding
    input_ids = torch.tensor([[101, 7592, 2088, 102, 0, 0], [101, 7592, 2088, 2003, 2307, 102]], dtype=torch.long)
    attention_mask = (input_ids != 0).to(torch.long)
    return input_ids, attention_mask, torch.zeros_like(input_ids)
