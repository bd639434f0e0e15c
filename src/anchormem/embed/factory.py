"""Build the embedder that :class:`~anchormem.config.EmbedSettings` names.

Every backend, the test-only ``hash`` one included, is named in :data:`anchormem.registries.EMBEDDERS`
(``BACKENDS`` here) and built the same way; a third party's is named there too (an entry point)."""

from __future__ import annotations

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
from anchormem.registries import EMBEDDERS


def openai(settings: EmbedSettings, _cache_dir: Path | None) -> Embedder:
    if not settings.base_url or not settings.model:
        raise ConfigError("the openai embedding backend needs embed.base_url and embed.model")
    return OpenAIEmbedder(settings.base_url, settings.model, api_key=settings.api_key, batch_size=settings.batch_size)


def minilm(settings: EmbedSettings, cache_dir: Path | None) -> Embedder:
    return AutoMiniLMEmbedder(batch_size=settings.batch_size, cache_dir=cache_dir)


def minilm_torch(settings: EmbedSettings, _cache_dir: Path | None) -> Embedder:
    return MiniLMEmbedder(batch_size=settings.batch_size)


def minilm_onnx(settings: EmbedSettings, cache_dir: Path | None) -> Embedder:
    return OnnxMiniLMEmbedder(batch_size=settings.batch_size, cache_dir=cache_dir)


def hashing(_settings: EmbedSettings, _cache_dir: Path | None) -> Embedder:
    return HashEmbedder()


BACKENDS = EMBEDDERS
"""Every embedding backend by name (:data:`anchormem.registries.EMBEDDERS`: built-ins, then third parties)."""


def open_embedder(
    settings: EmbedSettings, *, query_cache_size: int = 1024, onnx_cache_dir: str | Path | None = None
) -> Embedder:
    """The embedder for ``settings.backend``; nothing is loaded until the first ``embed``.

    Single-text calls are served from an LRU cache of ``query_cache_size`` entries
    (0 disables it). ``onnx_cache_dir`` overrides ``~/.cache/anchormem/onnx``.
    """
    builder = BACKENDS.named(settings.backend)
    if settings.batch_size < 1:
        raise ConfigError(f"embed.batch_size must be at least 1, got {settings.batch_size}")
    embedder = builder(settings, Path(onnx_cache_dir).expanduser() if onnx_cache_dir is not None else None)
    if query_cache_size > 0:
        return CachedEmbedder(embedder, maxsize=query_cache_size)
    return embedder
