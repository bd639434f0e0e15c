"""Build all-MiniLM-L6-v2 as one ONNX graph straight from its safetensors weights, without torch.

The graph computes what sentence-transformers' Transformer → Pooling(mean) → Normalize
pipeline computes: BERT embeddings (word + position + token type, LayerNorm), N encoder
layers (multi-head self-attention with the padding mask, exact erf GELU), masked mean
pooling and L2 normalisation. Inputs are ``input_ids``, ``attention_mask`` and
``token_type_ids`` (int64, ``[batch, sequence]``); the output is ``sentence_embedding``
(float32, ``[batch, hidden]``). onnxruntime fuses the plain ops into its attention,
GELU and LayerNorm kernels when the graph is loaded.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from anchormem.embed import onnx_proto as proto
from anchormem.embed.safetensors_np import read_safetensors
from anchormem.errors import EmbeddingError

OPSET = 17  # LayerNormalization is a standard op from 17 on
IR_VERSION = 8  # the IR that opset 17 shipped with; every onnxruntime since 1.13 reads it
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "sentence_embedding"

Array = npt.NDArray[np.generic]


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    heads: int
    layers: int
    intermediate: int
    eps: float

    @classmethod
    def read(cls, model_dir: Path) -> BertConfig:
        try:
            raw = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            config = cls(
                hidden=int(raw["hidden_size"]),
                heads=int(raw["num_attention_heads"]),
                layers=int(raw["num_hidden_layers"]),
                intermediate=int(raw["intermediate_size"]),
                eps=float(raw.get("layer_norm_eps", 1e-12)),
            )
            positions = raw.get("position_embedding_type", "absolute")
            kind = (raw.get("model_type"), raw.get("hidden_act", "gelu"), positions)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(f"cannot read the model config in {model_dir}: {exc}") from exc
        if kind != ("bert", "gelu", "absolute"):
            raise EmbeddingError(f"{model_dir}: expected a BERT model with gelu and absolute positions, got {kind}")
        if config.hidden % config.heads:
            raise EmbeddingError(f"{model_dir}: hidden size {config.hidden} is not divisible by {config.heads} heads")
        return config


def check_mean_pooling(model_dir: Path) -> None:
    """The graph pools by masked mean only; refuse a model that pools otherwise."""
    try:
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbeddingError(f"cannot read the pooling config of {model_dir}: {exc}") from exc
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode_") and v}
    if modes != {"pooling_mode_mean_tokens"}:
        raise EmbeddingError(f"{model_dir}: expected mean pooling only, found {sorted(modes)}")


def build_model_bytes(model_dir: Path) -> bytes:
    """The serialised ONNX model of the sentence-transformers model in ``model_dir``."""
    check_mean_pooling(model_dir)
    config = BertConfig.read(model_dir)
    weights = read_safetensors(model_dir / "model.safetensors")
    try:
        graph = _Graph(weights, config).build()
        data = proto.model(graph, opset=OPSET, ir_version=IR_VERSION, producer="anchormem")
    except KeyError as exc:
        raise EmbeddingError(f"{model_dir}/model.safetensors lacks the BERT weight {exc}") from exc
    return data


class _Graph:
    """Accumulates nodes and initializers; one method per BERT block."""

    def __init__(self, weights: dict[str, Array], config: BertConfig) -> None:
        self._weights = {_strip_prefix(k): v for k, v in weights.items()}
        self._config = config
        self._nodes: list[bytes] = []
        self._initializers: dict[str, bytes] = {}
        self._count = 0

    def build(self) -> bytes:
        c = self._config
        x = self._embeddings()
        mask = self._op("Cast", ["attention_mask"], to=proto.FLOAT)
        # [batch, 1, 1, seq]: 0 where a token is real, the lowest float where it is padding
        keep = self._op("Unsqueeze", [mask, self._const("axes12", np.array([1, 2], dtype=np.int64))])
        padding = self._op("Sub", [self._const("one", np.array(1.0, dtype=np.float32)), keep])
        lowest = self._const("lowest", np.array(np.finfo(np.float32).min, dtype=np.float32))
        bias = self._op("Mul", [padding, lowest])
        for i in range(c.layers):
            x = self._layer(i, x, bias)
        embedding = self._pool(x, mask)
        dims = ["batch", "sequence"]
        inputs = [proto.value_info(name, proto.INT64, dims) for name in INPUT_NAMES]
        output = proto.value_info(OUTPUT_NAME, proto.FLOAT, ["batch", c.hidden])
        self._nodes.append(proto.node("Identity", [embedding], [OUTPUT_NAME]))
        return proto.graph(self._nodes, "all-MiniLM-L6-v2", inputs, [output], list(self._initializers.values()))

    def _embeddings(self) -> str:
        words = self._op("Gather", [self._weight("embeddings.word_embeddings.weight"), "input_ids"])
        types = self._op("Gather", [self._weight("embeddings.token_type_embeddings.weight"), "token_type_ids"])
        length = self._op("Shape", ["input_ids"], start=1, end=2)
        zero = self._const("zero1", np.array([0], dtype=np.int64))
        positions = self._op("Slice", [self._weight("embeddings.position_embeddings.weight"), zero, length, zero])
        summed = self._op("Add", [self._op("Add", [words, positions]), types])
        return self._layer_norm("embeddings.LayerNorm", summed)

    def _layer(self, i: int, x: str, bias: str) -> str:
        c = self._config
        prefix = f"encoder.layer.{i}."
        head_dim = c.hidden // c.heads
        split = self._const("split_heads", np.array([0, 0, c.heads, head_dim], dtype=np.int64))
        merge = self._const("merge_heads", np.array([0, 0, c.hidden], dtype=np.int64))

        def heads(name: str, perm: list[int]) -> str:
            projected = self._dense(prefix + f"attention.self.{name}", x)
            return self._op("Transpose", [self._op("Reshape", [projected, split])], perm=perm)

        q = heads("query", [0, 2, 1, 3])  # [batch, heads, seq, head_dim]
        k = heads("key", [0, 2, 3, 1])  # [batch, heads, head_dim, seq]
        v = heads("value", [0, 2, 1, 3])
        scale = self._const("attention_scale", np.array(math.sqrt(head_dim), dtype=np.float32))
        scores = self._op("Add", [self._op("Div", [self._op("MatMul", [q, k]), scale]), bias])
        probs = self._op("Softmax", [scores], axis=-1)
        context = self._op("Transpose", [self._op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = self._op("Reshape", [context, merge])
        attended = self._dense(prefix + "attention.output.dense", context)
        x = self._layer_norm(prefix + "attention.output.LayerNorm", self._op("Add", [attended, x]))
        inner = self._gelu(self._dense(prefix + "intermediate.dense", x))
        out = self._dense(prefix + "output.dense", inner)
        return self._layer_norm(prefix + "output.LayerNorm", self._op("Add", [out, x]))

    def _pool(self, x: str, mask: str) -> str:
        weights = self._op("Unsqueeze", [mask, self._const("axes2", np.array([2], dtype=np.int64))])
        axis1 = self._const("axes1", np.array([1], dtype=np.int64))
        summed = self._op("ReduceSum", [self._op("Mul", [x, weights]), axis1], keepdims=0)
        counts = self._op("ReduceSum", [weights, axis1], keepdims=0)
        counts = self._op("Max", [counts, self._const("min_count", np.array(1e-9, dtype=np.float32))])
        mean = self._op("Div", [summed, counts])
        norm = self._op("ReduceL2", [mean], axes=[1], keepdims=1)  # axes is an attribute before opset 18
        norm = self._op("Max", [norm, self._const("min_norm", np.array(1e-12, dtype=np.float32))])
        return self._op("Div", [mean, norm])

    def _dense(self, prefix: str, x: str) -> str:
        kernel = np.ascontiguousarray(self._weights[prefix + ".weight"].T)  # torch stores [out, in]
        product = self._op("MatMul", [x, self._const(prefix + ".kernel", kernel)])
        return self._op("Add", [product, self._weight(prefix + ".bias")])

    def _layer_norm(self, prefix: str, x: str) -> str:
        scale, shift = self._weight(prefix + ".weight"), self._weight(prefix + ".bias")
        return self._op("LayerNormalization", [x, scale, shift], axis=-1, epsilon=self._config.eps)

    def _gelu(self, x: str) -> str:
        # BERT's "gelu": 0.5 * x * (1 + erf(x / sqrt(2)))
        root2 = self._const("sqrt2", np.array(math.sqrt(2.0), dtype=np.float32))
        erf = self._op("Erf", [self._op("Div", [x, root2])])
        one = self._const("one", np.array(1.0, dtype=np.float32))
        half = self._const("half", np.array(0.5, dtype=np.float32))
        return self._op("Mul", [self._op("Mul", [x, self._op("Add", [erf, one])]), half])

    def _weight(self, name: str) -> str:
        return self._const(name, np.asarray(self._weights[name], dtype=np.float32))

    def _const(self, name: str, value: Array) -> str:
        if name not in self._initializers:
            self._initializers[name] = proto.tensor(name, np.ascontiguousarray(value))
        return name

    def _op(self, op_type: str, inputs: list[str], **attributes: Any) -> str:
        self._count += 1
        output = f"{op_type.lower()}_{self._count}"
        self._nodes.append(proto.node(op_type, inputs, [output], **attributes))
        return output


def _strip_prefix(name: str) -> str:
    """Some exports name the weights ``bert.embeddings...``; the graph uses ``embeddings...``."""
    return name.removeprefix("bert.")
