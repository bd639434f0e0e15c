"""The hash embedder, the query cache and the factory (fast: no model is loaded)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from anchormem.config import EmbedSettings
from anchormem.embed import (
    BACKENDS,
    AutoMiniLMEmbedder,
    CachedEmbedder,
    Embedder,
    HashEmbedder,
    MiniLMEmbedder,
    OnnxMiniLMEmbedder,
    OpenAIEmbedder,
    Vectors,
    open_embedder,
)
from anchormem.embed.vectors import batches, l2_normalize
from anchormem.errors import ConfigError


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_hash_embedder_implements_the_protocol() -> None:
    embedder = HashEmbedder(dim=32)
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 32
    assert embedder.name == "hash-32"
    vectors = embedder.embed(["one", "two three"])
    assert vectors.shape == (2, 32)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_hash_embedder_is_deterministic_and_batch_equals_single() -> None:
    texts = ["Caroline went hiking", "", "日本語のテキスト 🙂", "Melanie painted a sunset"]
    batch = HashEmbedder().embed(texts)
    singles = np.concatenate([HashEmbedder().embed([t]) for t in texts])
    np.testing.assert_array_equal(batch, singles)


def test_no_texts_give_an_empty_matrix() -> None:
    assert HashEmbedder(dim=16).embed([]).shape == (0, 16)


def test_similar_texts_are_close_and_unrelated_ones_are_not() -> None:
    a, b, c = HashEmbedder().embed(
        [
            "Melanie painted a sunset with her kids",
            "Melanie painted a lake sunset with her kids",
            "Jon opened a dance studio downtown",
        ]
    )
    assert cosine(a, b) > 0.85
    assert cosine(a, c) < 0.5


def test_case_and_punctuation_do_not_matter() -> None:
    a, b = HashEmbedder().embed(["Hello, World!", "hello world"])
    assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)


def test_empty_and_unicode_texts_get_unit_vectors() -> None:
    vectors = HashEmbedder().embed(["", "   ", "¿Qué tal? — naïve café", "🙂"])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_bad_dim_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        HashEmbedder(dim=0)


def test_l2_normalize_keeps_zero_rows_and_batches_split() -> None:
    out = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert out.dtype == np.float32
    assert [list(b) for b in batches(["a", "b", "c"], 2)] == [["a", "b"], ["c"]]


class CountingEmbedder:
    """A fake embedder that counts the texts it is asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(dim=8)
        self.calls: list[list[str]] = []

    @property
    def name(self) -> str:
        return "counting"

    @property
    def dim(self) -> int:
        return 8

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def test_query_cache_serves_repeated_single_texts() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, maxsize=2)
    first = cached.embed(["q1"])
    first[0, 0] = 42.0  # callers mutating the result must not poison the cache
    again = cached.embed(["q1"])
    assert again[0, 0] != 42.0
    assert inner.calls == [["q1"]]
    assert (cached.hits, cached.misses) == (1, 1)
    cached.embed(["q2"])
    cached.embed(["q3"])  # evicts q1 (least recently used)
    cached.embed(["q1"])
    assert inner.calls[-1] == ["q1"]
    cached.embed(["a", "b"])  # batches bypass the cache
    assert inner.calls[-1] == ["a", "b"]
    assert cached.name == "counting" and cached.dim == 8


@pytest.mark.parametrize(
    ("backend", "kind"),
    [
        ("hash", HashEmbedder),
        ("minilm", AutoMiniLMEmbedder),
        ("minilm-torch", MiniLMEmbedder),
        ("minilm-onnx", OnnxMiniLMEmbedder),
    ],
)
def test_factory_builds_each_backend_without_loading_anything(backend: str, kind: type) -> None:
    embedder = open_embedder(EmbedSettings(backend=backend), query_cache_size=0)
    assert isinstance(embedder, kind)
    assert isinstance(embedder, Embedder)


def test_factory_wraps_in_the_query_cache_by_default() -> None:
    embedder = open_embedder(EmbedSettings(backend="hash"))
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, HashEmbedder)
    assert embedder.embed(["x"]).shape == (1, 64)


def test_factory_openai_needs_url_and_model() -> None:
    with pytest.raises(ConfigError, match="base_url"):
        open_embedder(EmbedSettings(backend="openai"))
    embedder = open_embedder(
        EmbedSettings(backend="openai", base_url="http://127.0.0.1:9", model="m"), query_cache_size=0
    )
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.url == "http://127.0.0.1:9/v1/embeddings"
    embedder.close()


def test_unknown_backend_is_a_config_error_listing_the_choices() -> None:
    with pytest.raises(ConfigError, match="minilm-onnx"):
        open_embedder(EmbedSettings(backend="word2vec"))
    assert set(BACKENDS) == {"minilm", "minilm-torch", "minilm-onnx", "openai", "hash"}


def test_bad_batch_size_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        open_embedder(EmbedSettings(backend="hash", batch_size=0))
