"""embed/onnx_proto.py writes ONNX models onnxruntime runs, without the onnx package."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from anchormem.embed import onnx_proto as proto


def test_a_small_graph_runs_in_onnxruntime_without_onnx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # as in a core install
    ort = pytest.importorskip("onnxruntime")
    weight = np.array([[1.0, -2.0], [0.5, 4.0]], dtype=np.float32)
    nodes = [
        proto.node("Cast", ["x"], ["xf"], to=proto.FLOAT),
        proto.node("MatMul", ["xf", "w"], ["y"]),
        proto.node("Softmax", ["y"], ["p"], axis=-1),
        proto.node("ReduceSum", ["p", "axes"], ["s"], keepdims=0),
        proto.node("LayerNormalization", ["y", "scale", "shift"], ["n"], axis=-1, epsilon=1e-5),
    ]
    initializers = [
        proto.tensor("w", weight),
        proto.tensor("axes", np.array([1], dtype=np.int64)),
        proto.tensor("scale", np.ones(2, dtype=np.float32)),
        proto.tensor("shift", np.zeros(2, dtype=np.float32)),
    ]
    graph = proto.graph(
        nodes,
        "tiny",
        [proto.value_info("x", proto.INT64, ["batch", 2])],
        [proto.value_info("s", proto.FLOAT, ["batch"]), proto.value_info("n", proto.FLOAT, ["batch", 2])],
        initializers,
    )
    model = proto.model(graph, opset=17, ir_version=8, producer="test")
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    x = np.array([[1, 2], [3, -1]], dtype=np.int64)
    s, n = session.run(None, {"x": x})
    y = x.astype(np.float32) @ weight
    assert np.allclose(s, 1.0)
    expected = (y - y.mean(axis=1, keepdims=True)) / np.sqrt(y.var(axis=1, keepdims=True) + 1e-5)
    assert np.allclose(n, expected, atol=1e-5)


def test_negative_ints_are_ten_byte_varints() -> None:
    assert proto._varint(-1) == b"\xff" * 9 + b"\x01"
    assert proto._varint(300) == b"\xac\x02"
