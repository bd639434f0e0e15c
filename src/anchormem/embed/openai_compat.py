"""An embedder for any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM,
Ollama, llama.cpp server, LiteLLM, text-embeddings-inference)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import numpy as np

from anchormem._util.http import EndpointClient, EndpointErrors, JsonEndpoint, RetryPolicy, endpoint_url, snippet
from anchormem.embed.protocol import Vectors
from anchormem.embed.vectors import batches, empty_vectors, l2_normalize
from anchormem.errors import ConfigError, EmbeddingError

EMBEDDING_ERRORS = EndpointErrors(unavailable=EmbeddingError, rejected=EmbeddingError, bad_response=EmbeddingError)


def embeddings_url(base_url: str) -> str:
    """``http://host:8000``, ``http://host:8000/v1`` and the full URL all map to
    ``http://host:8000/v1/embeddings``."""
    return endpoint_url(base_url, "embeddings", label="embedding")


class OpenAIEmbedder(EndpointClient):
    """Embeds through ``POST {base_url}/v1/embeddings`` in batches; vectors are L2-normalised.

    ``dim`` may be given up front; otherwise it is learned from the first answer (reading
    :attr:`dim` before any :meth:`embed` call sends one short probe request).
    Transient failures are retried ``max_retries`` times under the shared policy of
    :mod:`anchormem._util.http`; then :class:`EmbeddingError` names the URL.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        batch_size: int = 64,
        timeout: float = 30.0,
        max_retries: int = 2,
        dim: int | None = None,
        transport: httpx.BaseTransport | None = None,
        backoff: float = 0.25,
        backoff_max: float = 4.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not model:
            raise ConfigError("the openai embedding backend needs a model name")
        self._endpoint = JsonEndpoint(
            embeddings_url(base_url),
            label="embedding endpoint",
            errors=EMBEDDING_ERRORS,
            policy=RetryPolicy(retries=max_retries, backoff=backoff, backoff_max=backoff_max, sleep=sleep),
            api_key=api_key,
            timeout=timeout,
            transport=transport,
        )
        self._model = model
        self._batch_size = max(1, batch_size)
        self._dim = dim
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return empty_vectors(self._dim or 0)
        parts = [self._embed_batch(list(batch)) for batch in batches(texts, self._batch_size)]
        return l2_normalize(np.concatenate(parts, axis=0))

    def _embed_batch(self, texts: list[str]) -> Vectors:
        # some servers reject empty inputs; a single space embeds to the same "nothing"
        inputs = [t if t else " " for t in texts]
        data = self._endpoint.post({"model": self._model, "input": inputs, "encoding_format": "float"})
        vectors = _parse_vectors(data, len(texts), self.url)
        with self._lock:
            if self._dim is None:
                self._dim = vectors.shape[1]
        if vectors.shape[1] != self._dim:
            raise EmbeddingError(
                f"embedding endpoint {self.url} returned {vectors.shape[1]}-dim vectors, expected {self._dim}"
            )
        return vectors


def _parse_vectors(data: Any, expected: int, url: str) -> Vectors:
    try:
        items = sorted(data["data"], key=lambda item: int(item.get("index", 0)))
        rows = [item["embedding"] for item in items]
        matrix = np.asarray(rows, dtype=np.float32)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EmbeddingError(f"embedding endpoint {url} answered with unexpected JSON: {snippet(str(data))}") from exc
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        raise EmbeddingError(
            f"embedding endpoint {url} returned {matrix.shape[0] if matrix.ndim else 0} vectors for {expected} texts"
        )
    if not np.isfinite(matrix).all():
        raise EmbeddingError(f"embedding endpoint {url} returned non-finite values")
    return matrix
