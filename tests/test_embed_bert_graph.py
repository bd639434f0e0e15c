"""The torch-free MiniLM graph on a tiny random BERT: the safetensors reader, the ONNX graph
against a plain numpy BERT, and clear errors for models the graph does not cover."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from anchormem.embed.bert_graph import OUTPUT_NAME, build_model_bytes
from anchormem.embed.safetensors_np import read_safetensors
from anchormem.errors import EmbeddingError

HIDDEN, HEADS, LAYERS, INTER, VOCAB, POSITIONS = 8, 2, 2, 16, 30, 16


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        dtype = {"float32": "F32", "int64": "I64", "float16": "F16"}[array.dtype.name]
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))


def tiny_bert(model_dir: Path, seed: int = 3, **config: object) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, size=shape).astype(np.float32)

    weights = {
        "embeddings.position_ids": np.arange(POSITIONS, dtype=np.int64)[None],
        "embeddings.word_embeddings.weight": w(VOCAB, HIDDEN),
        "embeddings.position_embeddings.weight": w(POSITIONS, HIDDEN),
        "embeddings.token_type_embeddings.weight": w(2, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + w(HIDDEN),
        "embeddings.LayerNorm.bias": w(HIDDEN),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for name, (out, inp) in {
            "attention.self.query": (HIDDEN, HIDDEN),
            "attention.self.key": (HIDDEN, HIDDEN),
            "attention.self.value": (HIDDEN, HIDDEN),
            "attention.output.dense": (HIDDEN, HIDDEN),
            "intermediate.dense": (INTER, HIDDEN),
            "output.dense": (HIDDEN, INTER),
        }.items():
            weights[p + name + ".weight"], weights[p + name + ".bias"] = w(out, inp), w(out)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            weights[p + name + ".weight"], weights[p + name + ".bias"] = 1 + w(HIDDEN), w(HIDDEN)
    model_dir.mkdir(parents=True, exist_ok=True)
    write_safetensors(model_dir / "model.safetensors", weights)
    settings = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INTER,
        "layer_norm_eps": 1e-12,
        **config,
    }
    (model_dir / "config.json").write_text(json.dumps(settings))
    (model_dir / "1_Pooling").mkdir(exist_ok=True)
    (model_dir / "1_Pooling" / "config.json").write_text(
        json.dumps({"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False})
    )
    return weights


def numpy_bert(weights: dict[str, np.ndarray], ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The reference: BERT as the transformers library computes it, then mean pooling and L2."""
    from math import erf

    gelu = np.vectorize(lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))))

    def norm(x: np.ndarray, p: str) -> np.ndarray:
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * weights[p + ".weight"] + weights[p + ".bias"]

    def dense(x: np.ndarray, p: str) -> np.ndarray:
        return x @ weights[p + ".weight"].T + weights[p + ".bias"]

    batch, length = ids.shape
    x = (
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.position_embeddings.weight"][:length]
        + weights["embeddings.token_type_embeddings.weight"][np.zeros_like(ids)]
    ).astype(np.float64)
    x = norm(x, "embeddings.LayerNorm")
    d = HIDDEN // HEADS
    bias = (1.0 - mask[:, None, None, :]) * -1e30
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."

        def split(t: np.ndarray) -> np.ndarray:
            return t.reshape(batch, length, HEADS, d).transpose(0, 2, 1, 3)

        q, k, v = (split(dense(x, p + f"attention.self.{n}")) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, HIDDEN)
        x = norm(dense(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        x = norm(dense(gelu(dense(x, p + "intermediate.dense")), p + "output.dense") + x, p + "output.LayerNorm")
    pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    out: np.ndarray = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def test_safetensors_reader_round_trips(tmp_path: Path) -> None:
    tensors = {
        "a": np.arange(6, dtype=np.float32).reshape(2, 3),
        "b": np.array([[7, -8]], dtype=np.int64),
        "c": np.array([0.5, 1.5], dtype=np.float16),
    }
    write_safetensors(tmp_path / "m.safetensors", tensors)
    read = read_safetensors(tmp_path / "m.safetensors")
    assert set(read) == set(tensors)
    for name, array in tensors.items():
        np.testing.assert_array_equal(read[name], array)
        assert read[name].dtype == array.dtype


def test_safetensors_reader_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 5) + b"{nope")
    with pytest.raises(EmbeddingError, match=r"bad\.safetensors"):
        read_safetensors(bad)
    with pytest.raises(EmbeddingError, match=r"missing\.safetensors"):
        read_safetensors(tmp_path / "missing.safetensors")


def test_graph_computes_bert_with_mean_pooling(tmp_path: Path) -> None:
    import onnxruntime as ort

    weights = tiny_bert(tmp_path / "model")
    session = ort.InferenceSession(build_model_bytes(tmp_path / "model"), providers=["CPUExecutionProvider"])
    ids = np.array([[1, 5, 9, 2, 0, 0, 0], [1, 7, 3, 11, 4, 6, 2], [1, 2, 0, 0, 0, 0, 0]], dtype=np.int64)
    mask = (ids != 0).astype(np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    (got,) = session.run([OUTPUT_NAME], feeds)
    expected = numpy_bert(weights, ids, mask.astype(np.float64))
    np.testing.assert_allclose(got, expected, atol=2e-5)
    # padding changes nothing: the first row alone, unpadded
    (alone,) = session.run([OUTPUT_NAME], {k: v[:1, :4] for k, v in feeds.items()})
    np.testing.assert_allclose(alone[0], got[0], atol=2e-5)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"hidden_act": "relu"}, "gelu"),
        ({"position_embedding_type": "relative_key"}, "absolute"),
        ({"num_attention_heads": 3}, "divisible"),
    ],
)
def test_models_the_graph_does_not_cover_are_refused(tmp_path: Path, config: dict[str, object], message: str) -> None:
    tiny_bert(tmp_path / "model", **config)
    with pytest.raises(EmbeddingError, match=message):
        build_model_bytes(tmp_path / "model")


def test_other_pooling_and_missing_weights_are_refused(tmp_path: Path) -> None:
    model = tmp_path / "model"
    weights = tiny_bert(model)
    (model / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    with pytest.raises(EmbeddingError, match="mean pooling"):
        build_model_bytes(model)
    tiny_bert(model)
    del weights["encoder.layer.1.output.dense.bias"]
    write_safetensors(model / "model.safetensors", weights)
    with pytest.raises(EmbeddingError, match=r"encoder\.layer\.1\.output\.dense\.bias"):
        build_model_bytes(model)
