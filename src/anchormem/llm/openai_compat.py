"""A client for any OpenAI-compatible ``/v1/chat/completions`` endpoint
(vLLM, Ollama, llama.cpp server, OpenAI, LiteLLM), over httpx.

Transient failures (connection errors, timeouts, HTTP 429 and 5xx) are retried with
exponential backoff and jitter; when they persist, :class:`LLMUnavailableError` says
which URL failed and how. Other 4xx answers are not retried. At most
``settings.concurrency`` requests are in flight at once, whatever the number of
calling threads.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any, Self

import httpx

from anchormem.config import LLMSettings
from anchormem.errors import ConfigError, LLMError, LLMResponseError, LLMUnavailableError
from anchormem.llm.keys import estimate_prompt_tokens, estimate_tokens
from anchormem.llm.protocol import Completion, CompletionParams, Message


def chat_completions_url(base_url: str) -> str:
    """``http://host:8000``, ``http://host:8000/`` and ``http://host:8000/v1`` all give
    ``http://host:8000/v1/chat/completions``."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"LLM base URL must start with http:// or https://, got {base_url!r}")
    if url.endswith("/chat/completions"):
        return url
    if not url.endswith("/v1"):
        url += "/v1"
    return url + "/chat/completions"


class _Retryable(Exception):
    """One failed attempt that may succeed when tried again."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.retry_after = retry_after


class OpenAICompatLLM:
    """The :class:`~anchormem.llm.protocol.LLM` protocol over HTTP. Thread-safe.

    ``transport`` replaces the network (tests); ``backoff`` is the first retry delay in
    seconds (doubled each retry, capped at ``backoff_max``, with up to 50 % jitter).
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        transport: httpx.BaseTransport | None = None,
        backoff: float = 0.5,
        backoff_max: float = 8.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._settings = settings
        self._url = chat_completions_url(settings.base_url)
        self._retries = max(0, settings.max_retries)
        self._backoff = backoff
        self._backoff_max = backoff_max
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        timeout = httpx.Timeout(settings.timeout, connect=min(settings.timeout, 10.0))
        limits = httpx.Limits(max_connections=max(1, settings.concurrency))
        self._client = httpx.Client(headers=headers, timeout=timeout, limits=limits, transport=transport)

    @property
    def model(self) -> str:
        return self._settings.model

    @property
    def url(self) -> str:
        return self._url

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        params = params or CompletionParams(temperature=self._settings.temperature)
        body: dict[str, Any] = {"model": self._settings.model, "messages": messages, **params.as_dict()}
        started = time.monotonic()
        attempts = self._retries + 1
        attempt = 0
        while True:
            attempt += 1
            try:
                with self._slots:
                    data = self._post(body)
            except _Retryable as exc:
                if attempt >= attempts:
                    tries = f"{attempts} attempts" if attempts > 1 else "1 attempt"
                    raise LLMUnavailableError(f"LLM endpoint {self._url} failed ({tries}): {exc.what}") from None
                self._sleep(self._delay(attempt, exc.retry_after))
                continue
            return self._completion(data, messages, time.monotonic() - started)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        delay = min(self._backoff_max, self._backoff * 2.0 ** (attempt - 1))
        delay *= 1.0 + random.random() * 0.5
        if retry_after is not None:
            delay = max(delay, min(retry_after, self._backoff_max * 4))
        return delay

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(self._url, json=body)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out after {self._settings.timeout:g}s ({type(exc).__name__})") from None
        except httpx.ConnectError as exc:
            raise _Retryable(f"cannot connect ({_reason(exc)})") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection failed ({type(exc).__name__}: {_reason(exc)})") from None
        status = response.status_code
        if status >= 500 or status == 429:
            raise _Retryable(f"HTTP {status} {_snippet(response.text)}".rstrip(), _retry_after(response))
        if status >= 400:
            raise LLMError(f"LLM endpoint {self._url} rejected the request: HTTP {status} {_snippet(response.text)}")
        try:
            data = response.json()
        except ValueError:
            raise LLMResponseError(
                f"LLM endpoint {self._url} answered with non-JSON: {_snippet(response.text)}"
            ) from None
        if not isinstance(data, dict):
            raise LLMResponseError(f"LLM endpoint {self._url} answered with unexpected JSON: {_snippet(response.text)}")
        return data

    def _completion(self, data: dict[str, Any], messages: list[Message], seconds: float) -> Completion:
        try:
            message = data["choices"][0]["message"]
            text = message.get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMResponseError(
                f"LLM endpoint {self._url} answered without choices[0].message: {_snippet(str(data))}"
            ) from None
        if not isinstance(text, str):
            raise LLMResponseError(f"LLM endpoint {self._url} answered with non-text content")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens = _int(usage.get("prompt_tokens")) if usage else None
        completion_tokens = _int(usage.get("completion_tokens")) if usage else None
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens if prompt_tokens is not None else estimate_prompt_tokens(messages),
            completion_tokens=completion_tokens if completion_tokens is not None else estimate_tokens(text),
            model=str(data.get("model") or self._settings.model),
            seconds=seconds,
        )


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    if "Connection refused" in text or "[Errno 111]" in text:
        return "connection refused"
    return " ".join(text.split())[:160]


def _snippet(text: str, limit: int = 200) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[:limit] + "…"


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
