"""A client for any OpenAI-compatible ``/v1/chat/completions`` endpoint
(vLLM, Ollama, llama.cpp server, OpenAI, LiteLLM), over httpx.

Transient failures are retried with exponential backoff and jitter (the shared policy of
:mod:`anchormem._util.http`); when they persist, :class:`LLMUnavailableError` says which URL failed
and how. At most ``settings.concurrency`` requests are in flight at once, whatever the number of
calling threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from anchormem._util.http import EndpointClient, EndpointErrors, JsonEndpoint, RetryPolicy, endpoint_url, snippet
from anchormem.config import LLMSettings
from anchormem.errors import LLMError, LLMResponseError, LLMUnavailableError
from anchormem.llm.keys import estimate_prompt_tokens, estimate_tokens
from anchormem.llm.protocol import Completion, CompletionParams, Message

LLM_ERRORS = EndpointErrors(unavailable=LLMUnavailableError, rejected=LLMError, bad_response=LLMResponseError)


def chat_completions_url(base_url: str) -> str:
    """``http://host:8000``, ``http://host:8000/`` and ``http://host:8000/v1`` all give
    ``http://host:8000/v1/chat/completions``."""
    return endpoint_url(base_url, "chat/completions", label="LLM")


class OpenAICompatLLM(EndpointClient):
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
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        self._endpoint = JsonEndpoint(
            chat_completions_url(settings.base_url),
            label="LLM endpoint",
            errors=LLM_ERRORS,
            policy=RetryPolicy(retries=settings.max_retries, backoff=backoff, backoff_max=backoff_max, sleep=sleep),
            api_key=settings.api_key,
            timeout=settings.timeout,
            max_connections=max(1, settings.concurrency),
            transport=transport,
        )

    @property
    def model(self) -> str:
        return self._settings.model

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        params = params or CompletionParams(temperature=self._settings.temperature)
        body: dict[str, Any] = {"model": self._settings.model, "messages": messages, **params.as_dict()}
        started = time.monotonic()
        data = self._endpoint.post(body, attempt_guard=lambda: self._slots)
        return completion_from_body(
            data,
            messages,
            model=self._settings.model,
            seconds=time.monotonic() - started,
            source=f"LLM endpoint {self.url}",
        )


def completion_from_body(
    data: Any, messages: list[Message], *, model: str, seconds: float = 0.0, source: str = "LLM endpoint"
) -> Completion:
    """The :class:`Completion` of one ``chat.completion`` body, as a live call or a batch results line
    gives it: the text of ``choices[0].message``, the reported token usage (estimated when absent) and
    the model that answered (``model`` when unnamed). :class:`LLMResponseError` names ``source`` when the
    body has no readable message."""
    try:
        message = data["choices"][0]["message"]
        text = message.get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        raise LLMResponseError(f"{source} answered without choices[0].message: {snippet(str(data))}") from None
    if not isinstance(text, str):
        raise LLMResponseError(f"{source} answered with non-text content")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    prompt_tokens = _int(usage.get("prompt_tokens")) if usage else None
    completion_tokens = _int(usage.get("completion_tokens")) if usage else None
    return Completion(
        text=text,
        prompt_tokens=prompt_tokens if prompt_tokens is not None else estimate_prompt_tokens(messages),
        completion_tokens=completion_tokens if completion_tokens is not None else estimate_tokens(text),
        model=str(data.get("model") or model),
        seconds=seconds,
    )


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None
