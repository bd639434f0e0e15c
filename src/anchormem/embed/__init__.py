"""Embedders: one protocol; MiniLM (sentence-transformers or onnxruntime) and
OpenAI-compatible /v1/embeddings."""

from anchormem.embed.cache import CachedEmbedder
from anchormem.embed.factory import BACKENDS, open_embedder
from anchormem.embed.hashing import HashEmbedder
from anchormem.embed.minilm import MiniLMEmbedder
from anchormem.embed.minilm_auto import AutoMiniLMEmbedder
from anchormem.embed.onnx_runtime import OnnxMiniLMEmbedder
from anchormem.embed.openai_compat import OpenAIEmbedder
from anchormem.embed.protocol import Embedder, Vectors

__all__ = [
    "BACKENDS",
    "AutoMiniLMEmbedder",
    "CachedEmbedder",
    "Embedder",
    "HashEmbedder",
    "MiniLMEmbedder",
    "OnnxMiniLMEmbedder",
    "OpenAIEmbedder",
    "Vectors",
    "open_embedder",
]
