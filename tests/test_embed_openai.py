"""The OpenAI-compatible embedder against a tiny fake /v1/embeddings server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from anchormem.embed import HashEmbedder, OpenAIEmbedder
from anchormem.embed.openai_compat import embeddings_url
from anchormem.errors import ConfigError, EmbeddingError


class FakeEmbeddingServer(ThreadingHTTPServer):
    """Answers POST /v1/embeddings with (unnormalised) hash vectors, in reverse index order.

    ``mode`` switches misbehaviour: "ok", "http500" (then ok), "always500", "garbage", "short".
    """

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.mode = "ok"
        self.embedder = HashEmbedder(dim=16)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeEmbeddingServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        self.server.headers_seen.append(dict(self.headers))
        mode = self.server.mode
        if self.path != "/v1/embeddings":
            return self._send(404, b'{"error": "not found"}')
        if mode in ("http500", "always500"):
            if mode == "http500":
                self.server.mode = "ok"
            return self._send(500, b'{"error": "overloaded"}')
        if mode == "garbage":
            return self._send(200, b"<html>not json</html>")
        texts = body["input"]
        if mode == "short":
            texts = texts[:-1]
        vectors = self.server.embedder.embed(texts) * 3.0  # the client must normalise
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        data.reverse()  # the client must order by index
        self._send(200, json.dumps({"object": "list", "data": data, "model": body["model"]}).encode())

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[FakeEmbeddingServer]:
    srv = FakeEmbeddingServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def test_embeds_in_batches_normalised_and_in_order(server: FakeEmbeddingServer) -> None:
    texts = [f"text number {i}" for i in range(5)] + [""]
    with OpenAIEmbedder(server.base_url, "fake-embed", api_key="sk-test", batch_size=2) as embedder:
        vectors = embedder.embed(texts)
        assert embedder.dim == 16
        assert embedder.name == "fake-embed"
    assert vectors.shape == (6, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    expected = HashEmbedder(dim=16).embed([t or " " for t in texts])
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert [len(r["input"]) for r in server.requests] == [2, 2, 2]
    assert all(r["model"] == "fake-embed" for r in server.requests)
    assert server.headers_seen[0]["Authorization"] == "Bearer sk-test"


def test_dim_is_probed_when_unknown(server: FakeEmbeddingServer) -> None:
    with OpenAIEmbedder(server.base_url + "/v1", "m") as embedder:
        assert embedder.dim == 16
    assert len(server.requests) == 1


def test_transient_http_error_is_retried(server: FakeEmbeddingServer) -> None:
    server.mode = "http500"
    with OpenAIEmbedder(server.base_url, "m", max_retries=1) as embedder:
        assert embedder.embed(["hi"]).shape == (1, 16)
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("mode", "message"),
    [("always500", "HTTP 500"), ("garbage", "non-JSON"), ("short", "vectors for 2 texts")],
)
def test_bad_answers_raise_embedding_error_naming_the_url(server: FakeEmbeddingServer, mode: str, message: str) -> None:
    server.mode = mode
    with (
        OpenAIEmbedder(server.base_url, "m", max_retries=0) as embedder,
        pytest.raises(EmbeddingError, match=message) as info,
    ):
        embedder.embed(["a", "b"])
    assert f"{server.base_url}/v1/embeddings" in str(info.value)


def test_dead_port_raises_embedding_error_naming_the_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with (
        OpenAIEmbedder(url, "m", timeout=2.0, max_retries=0) as embedder,
        pytest.raises(EmbeddingError, match=f"{url}/v1/embeddings.*unreachable"),
    ):
        embedder.embed(["hello"])


def test_no_texts_make_no_request(server: FakeEmbeddingServer) -> None:
    with OpenAIEmbedder(server.base_url, "m", dim=16) as embedder:
        assert embedder.embed([]).shape == (0, 16)
    assert server.requests == []


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://h:8000", "http://h:8000/v1/embeddings"),
        ("http://h:8000/v1/", "http://h:8000/v1/embeddings"),
        ("https://h/v1/embeddings", "https://h/v1/embeddings"),
    ],
)
def test_embeddings_url(base: str, url: str) -> None:
    assert embeddings_url(base) == url


def test_bad_base_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        embeddings_url("localhost:8000")
