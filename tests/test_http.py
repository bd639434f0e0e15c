"""The shared HTTP policy of the OpenAI-compatible clients: the chat client and the embedder build
URLs the same way and retry exactly the same failures."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from anchormem._util.http import RetryPolicy, endpoint_url, is_retryable_status
from anchormem.config import LLMSettings
from anchormem.embed.openai_compat import OpenAIEmbedder, embeddings_url
from anchormem.errors import AnchorMemError, ConfigError, EmbeddingError, LLMError, LLMUnavailableError
from anchormem.llm.openai_compat import OpenAICompatLLM, chat_completions_url

CHAT_OK = {"choices": [{"message": {"content": "hi"}}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
EMBED_OK = {"data": [{"index": 0, "embedding": [0.6, 0.8]}]}


class Scripted:
    """A transport answering each request with the next status of ``statuses``, then 200 ``ok``."""

    def __init__(self, statuses: list[int], ok: dict[str, Any]) -> None:
        self.statuses = list(statuses)
        self.ok = ok
        self.requests = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        if self.statuses:
            return httpx.Response(self.statuses.pop(0), text="busy")
        return httpx.Response(200, content=json.dumps(self.ok).encode())


def chat(script: Scripted, retries: int) -> Callable[[], object]:
    llm = OpenAICompatLLM(
        LLMSettings(base_url="http://llm.test", model="m", max_retries=retries),
        transport=httpx.MockTransport(script),
        sleep=lambda _s: None,
    )
    return lambda: llm.complete([{"role": "user", "content": "hello"}])


def embed(script: Scripted, retries: int) -> Callable[[], object]:
    embedder = OpenAIEmbedder(
        "http://embed.test", "m", max_retries=retries, transport=httpx.MockTransport(script), sleep=lambda _s: None
    )
    return lambda: embedder.embed(["hello"])


CLIENTS = [pytest.param(chat, CHAT_OK, id="chat"), pytest.param(embed, EMBED_OK, id="embeddings")]


@pytest.mark.parametrize(("client", "ok"), CLIENTS)
@pytest.mark.parametrize("status", [408, 429, 500, 501, 502, 503, 504])
def test_both_clients_retry_the_same_transient_statuses(client: Any, ok: dict[str, Any], status: int) -> None:
    script = Scripted([status], ok)
    client(script, retries=1)()
    assert script.requests == 2


@pytest.mark.parametrize(("client", "ok"), CLIENTS)
@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_both_clients_fail_at_once_on_a_request_error(client: Any, ok: dict[str, Any], status: int) -> None:
    script = Scripted([status], ok)
    with pytest.raises(AnchorMemError, match=f"HTTP {status}") as info:
        client(script, retries=3)()
    assert script.requests == 1
    assert not isinstance(info.value, LLMUnavailableError)


@pytest.mark.parametrize(
    ("client", "ok", "error"), [(chat, CHAT_OK, LLMUnavailableError), (embed, EMBED_OK, EmbeddingError)]
)
def test_persistent_failure_names_the_attempts(client: Any, ok: dict[str, Any], error: type[Exception]) -> None:
    script = Scripted([503] * 5, ok)
    with pytest.raises(error, match=r"failed \(3 attempts\): HTTP 503"):
        client(script, retries=2)()
    assert script.requests == 3


def test_retryable_statuses() -> None:
    assert [s for s in range(400, 600) if is_retryable_status(s)] == [408, 429, *range(500, 600)]


def test_backoff_doubles_up_to_the_cap_and_honours_retry_after() -> None:
    policy = RetryPolicy(retries=5, backoff=1.0, backoff_max=4.0)
    for attempt, base in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 4.0)]:
        assert base <= policy.delay(attempt) <= base * 1.5
    assert policy.delay(1, retry_after=10.0) == 10.0
    assert policy.delay(1, retry_after=100.0) == 16.0  # at most four times the cap


@pytest.mark.parametrize("base", ["http://h:8000", "http://h:8000/", "http://h:8000/v1", " http://h:8000/v1/ "])
def test_one_url_builder_for_both_endpoints(base: str) -> None:
    assert chat_completions_url(base) == "http://h:8000/v1/chat/completions"
    assert embeddings_url(base) == "http://h:8000/v1/embeddings"
    assert endpoint_url(base, "models", label="x") == "http://h:8000/v1/models"


def test_an_error_that_retrying_cannot_fix_is_the_clients_own() -> None:
    with pytest.raises(LLMError):
        chat(Scripted([400], CHAT_OK), retries=0)()
    with pytest.raises(EmbeddingError):
        embed(Scripted([400], EMBED_OK), retries=0)()
    with pytest.raises(ConfigError):
        endpoint_url("h:8000", "embeddings", label="embedding")
