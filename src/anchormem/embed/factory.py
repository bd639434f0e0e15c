"""Build the embedder that :class:`~anchormem.config.EmbedSettings` names.

Every backend, the test-only ``hash`` one included, is registered in ``BACKENDS``
and built the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from anchormem.config import EmbedSettings
from anchormem.embed.cache import CachedEmbedder
from anchormem.embed.hashing import HashEmbedder
from anchormem.embed.minilm import MiniLMEmbedder
from anchormem.embed.minilm_auto import AutoMiniLMEmbedder
from anchormem.embed.onnx_runtime import OnnxMiniLMEmbedder
from anchormem.embed.openai_compat import OpenAIEmbedder
from anchormem.embed.protocol import Embedder
from anchormem.errors import ConfigError

Builder = Callable[[EmbedSettings, "Path | None"], Embedder]


def _openai(settings: EmbedSettings, _cache_dir: Path | None) -> Embedder:
    if not settings.base_url or not settings.model:
        raise ConfigError("the openai embedding backend needs embed.base_url and embed.model")
    return OpenAIEmbedder(settings.base_url, settings.model, api_key=settings.api_key, batch_size=settings.batch_size)


BACKENDS: dict[str, Builder] = {
    "minilm": lambda s, cache_dir: AutoMiniLMEmbedder(batch_size=s.batch_size, cache_dir=cache_dir),
    "minilm-torch": lambda s, _cache_dir: MiniLMEmbedder(batch_size=s.batch_size),
    "minilm-onnx": lambda s, cache_dir: OnnxMiniLMEmbedder(batch_size=s.batch_size, cache_dir=cache_dir),
    "openai": _openai,
    "hash": lambda _s, _cache_dir: HashEmbedder(),
}


def open_embedder(
    settings: EmbedSettings, *, query_cache_size: int = 1024, onnx_cache_dir: str | Path | None = None
) -> Embedder:
    """The embedder for ``settings.backend``; nothing is loaded until the first ``embed``.

    Single-text calls are served from an LRU cache of ``query_cache_size`` entries
    (0 disables it). ``onnx_cache_dir`` overrides ``~/.cache/anchormem/onnx``.
    """
    builder = BACKENDS.get(settings.backend)
    if builder is None:
        raise ConfigError(
            f"unknown embedding backend {settings.backend!r}; choose one of {', '.join(sorted(BACKENDS))}"
        )
    if settings.batch_size < 1:
        raise ConfigError(f"embed.batch_size must be at least 1, got {settings.batch_size}")
    embedder = builder(settings, Path(onnx_cache_dir).expanduser() if onnx_cache_dir is not None else None)
    if query_cache_size > 0:
        return CachedEmbedder(embedder, maxsize=query_cache_size)
    return embedder
