"""OpenAICompatLLM, CachedLLM and Accounting against a tiny local OpenAI-compatible server."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from bench.fake_server import FakeOpenAIServer, free_port

from anchormem.config import LLMSettings
from anchormem.errors import ConfigError, LLMError, LLMUnavailableError
from anchormem.llm import Accounting, CachedLLM, CompletionParams, FakeLLM, OpenAICompatLLM, open_llm
from anchormem.llm.openai_compat import chat_completions_url

HELLO = [{"role": "user", "content": "Say hi."}]


def client(base_url: str, **kwargs: object) -> OpenAICompatLLM:
    settings = LLMSettings(base_url=base_url, model="test-model", **kwargs)  # type: ignore[arg-type]
    return OpenAICompatLLM(settings, backoff=0.01, backoff_max=0.05)


def test_url_accepts_base_with_or_without_v1() -> None:
    expected = "http://h:8000/v1/chat/completions"
    for base in ("http://h:8000", "http://h:8000/", "http://h:8000/v1", "http://h:8000/v1/", expected):
        assert chat_completions_url(base) == expected
    with pytest.raises(ConfigError):
        chat_completions_url("h:8000")


def test_success_reads_text_usage_and_sends_the_request() -> None:
    with FakeOpenAIServer(reply="hi there") as server:
        for base in (server.base_url, server.base_url + "/v1/"):
            llm = client(base, api_key="sk-test")
            out = llm.complete(HELLO, CompletionParams(temperature=0.2, max_tokens=50, extra={"seed": 1}))
            assert out.text == "hi there"
            assert (out.prompt_tokens, out.completion_tokens) == (11, 3)
            assert out.model == "test-model" and not out.cached and out.seconds > 0
        body = server.requests[-1]
        assert body["model"] == "test-model" and body["messages"] == HELLO
        assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.2, 50, 1)
        assert server.headers_seen[-1]["authorization"] == "Bearer sk-test"


def test_missing_usage_is_estimated() -> None:
    with FakeOpenAIServer(reply="a reply of some length", usage=False) as server:
        out = client(server.base_url).complete(HELLO)
    assert out.prompt_tokens > 0 and out.completion_tokens > 0


def test_500_then_success_is_retried() -> None:
    with FakeOpenAIServer([500, 503], reply="fine") as server:
        out = client(server.base_url, max_retries=3).complete(HELLO)
        assert out.text == "fine"
        assert len(server.requests) == 3


def test_429_honours_retry_after() -> None:
    delays: list[float] = []
    with FakeOpenAIServer([429], headers={"Retry-After": "0.2"}) as server:
        llm = OpenAICompatLLM(LLMSettings(base_url=server.base_url, model="m"), backoff=0.01, sleep=delays.append)
        assert llm.complete(HELLO).text == "ok"
    assert len(delays) == 1 and delays[0] >= 0.2


def test_persistent_5xx_raises_unavailable_naming_url_and_status() -> None:
    with FakeOpenAIServer([503] * 10) as server:
        with pytest.raises(LLMUnavailableError) as info:
            client(server.base_url, max_retries=2).complete(HELLO)
        assert len(server.requests) == 3
    message = str(info.value)
    assert server.base_url in message and "HTTP 503" in message and "3 attempts" in message
    assert "\n" not in message


def test_other_4xx_is_not_retried() -> None:
    with FakeOpenAIServer([401]) as server:
        with pytest.raises(LLMError) as info:
            client(server.base_url, max_retries=3).complete(HELLO)
        assert len(server.requests) == 1
    assert not isinstance(info.value, LLMUnavailableError)
    assert "HTTP 401" in str(info.value)


def test_dead_port_fails_fast_with_clear_message() -> None:
    base = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError) as info:
        client(base, max_retries=2, timeout=5.0).complete(HELLO)
    assert time.monotonic() - started < 3.0
    message = str(info.value)
    assert base in message and "connect" in message and "\n" not in message


def test_slow_server_times_out() -> None:
    with FakeOpenAIServer([("sleep", 3.0)] * 3) as server:
        started = time.monotonic()
        with pytest.raises(LLMUnavailableError) as info:
            client(server.base_url, max_retries=1, timeout=0.3).complete(HELLO)
        assert time.monotonic() - started < 2.5
    assert "timed out after 0.3s" in str(info.value)


def test_concurrency_is_bounded_by_settings() -> None:
    with FakeOpenAIServer(delay=0.15) as server:
        llm = client(server.base_url, concurrency=2)
        threads = [threading.Thread(target=llm.complete, args=(HELLO,)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(server.requests) == 6
        assert 1 <= server.max_active <= 2  # bounded; under load the calls need not overlap


def test_cache_hit_is_free_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "llm.db"
    with FakeOpenAIServer(reply="remembered") as server:
        cached = CachedLLM(client(server.base_url), path)
        first = cached.complete(HELLO)
        second = cached.complete(HELLO)
        assert len(server.requests) == 1
        assert not first.cached and second.cached
        assert second.text == "remembered" and second.prompt_tokens == 11
        other = cached.complete(HELLO, CompletionParams(max_tokens=7))  # other params: a miss
        assert not other.cached and len(server.requests) == 2
        cached.close()
    # the server is gone: only the cache can answer now
    reopened = CachedLLM(client(f"http://127.0.0.1:{free_port()}", max_retries=0), path)
    assert reopened.complete(HELLO).cached
    assert len(reopened) == 2


def test_cache_forget_containing_and_clear(tmp_path: Path) -> None:
    with FakeOpenAIServer(reply=lambda body: "echo " + body["messages"][-1]["content"]) as server:
        cached = CachedLLM(client(server.base_url), tmp_path / "c.db")
        for text in ('Caroline said "hi"', "Melanie paints", "Caroline runs"):
            cached.complete([{"role": "user", "content": text}])
        assert cached.forget_containing('Caroline said "hi"') == 1  # found inside the JSON request
        assert cached.forget_containing("paints") == 1
        assert cached.forget_containing("absent") == 0
        assert len(cached) == 1
        assert cached.clear() == 1 and len(cached) == 0
        before = len(server.requests)
        assert not cached.complete([{"role": "user", "content": "Melanie paints"}]).cached
        assert len(server.requests) == before + 1


def test_accounting_per_phase(tmp_path: Path) -> None:
    accounting = Accounting()
    with FakeOpenAIServer() as server:
        cached = CachedLLM(client(server.base_url), tmp_path / "c.db")
        extract = accounting.wrap(cached, "extract")
        answer = accounting.wrap(cached, "answer")
        extract.complete(HELLO)
        extract.complete(HELLO)  # cached
        answer.complete([{"role": "user", "content": "Q?"}])
    dead = accounting.wrap(client(f"http://127.0.0.1:{free_port()}", max_retries=0), "answer")
    with pytest.raises(LLMUnavailableError):
        dead.complete(HELLO)
    ex, an = accounting.usage("extract"), accounting.usage("answer")
    assert (ex.calls, ex.cached_calls, ex.failed_calls) == (2, 1, 0)
    assert (ex.prompt_tokens, ex.completion_tokens) == (11, 3)  # spent: the cached call's tokens are apart
    assert (ex.cached_prompt_tokens, ex.cached_completion_tokens) == (11, 3)
    assert (an.calls, an.cached_calls, an.failed_calls, an.prompt_tokens) == (2, 0, 1, 11)
    assert ex.call_seconds > 0 and an.call_seconds > 0 and ex.wall_seconds > 0
    assert set(accounting.snapshot()) == {"extract", "answer"}
    assert accounting.total().calls == 4
    assert accounting.usage("unknown").calls == 0


def test_open_llm_builds_a_cached_client(tmp_path: Path) -> None:
    settings = LLMSettings(base_url="http://127.0.0.1:1/v1", model="m")
    assert isinstance(open_llm(settings, None), OpenAICompatLLM)
    llm = open_llm(settings, tmp_path / "c.db")
    assert isinstance(llm, CachedLLM) and llm.model == "m"


def test_cache_and_accounting_are_thread_safe(tmp_path: Path) -> None:
    inner = FakeLLM(lambda messages: messages[-1]["content"][::-1])
    accounting = Accounting()
    llm = accounting.wrap(CachedLLM(inner, tmp_path / "c.db"), "extract")
    prompts = [[{"role": "user", "content": f"prompt {i % 5}"}] for i in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        texts = list(pool.map(lambda m: llm.complete(m).text, prompts))
    assert texts == [m[0]["content"][::-1] for m in prompts]
    usage = accounting.usage("extract")
    assert usage.calls == 40 and usage.cached_calls == 40 - inner.calls and 5 <= inner.calls < 40
