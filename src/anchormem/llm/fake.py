"""A fake LLM for tests, used exactly like a real one (it implements the protocol).

It answers from a function of the messages, from responses recorded under their
cache key (:func:`anchormem.llm.keys.cache_key`), from a list consumed in order, or
with one fixed text; it counts its calls and can fail on demand.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from anchormem.errors import LLMError, LLMUnavailableError
from anchormem.llm.keys import cache_key, estimate_prompt_tokens, estimate_tokens
from anchormem.llm.protocol import Completion, CompletionParams, Message

Responder = Callable[[list[Message]], str]


class FakeLLM:
    """``responses`` is one of:

    - a callable ``(messages) -> str`` (it may raise an anchormem error to fail a call);
    - a mapping ``cache_key(model, messages, params) -> text`` of recorded responses;
    - a list of texts, answered in order (an error when exhausted);
    - a single text, the answer to everything.

    ``fail_first`` makes the first calls raise ``failure`` (default: LLMUnavailableError);
    :meth:`fail_next` arms more failures later. ``delay`` sleeps that many seconds per call.
    """

    def __init__(
        self,
        responses: Responder | Mapping[str, str] | Sequence[str] | str,
        *,
        model: str = "fake-llm",
        fail_first: int = 0,
        failure: Callable[[], Exception] | None = None,
        delay: float = 0.0,
    ) -> None:
        self._responses = responses
        self._model = model
        self._failures = fail_first
        self._failure = failure or (lambda: LLMUnavailableError("FakeLLM: simulated failure"))
        self._delay = delay
        self._lock = threading.Lock()
        self._next = 0
        self.calls = 0
        self.failed_calls = 0
        self.requests: list[list[Message]] = []

    @property
    def model(self) -> str:
        return self._model

    def fail_next(self, times: int = 1, failure: Callable[[], Exception] | None = None) -> None:
        """Make the next ``times`` calls fail (with ``failure()`` when given)."""
        with self._lock:
            self._failures += times
            if failure is not None:
                self._failure = failure

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        started = time.monotonic()
        with self._lock:
            self.calls += 1
            self.requests.append([dict(m) for m in messages])
            failing = self._failures > 0
            if failing:
                self._failures -= 1
                self.failed_calls += 1
        if self._delay:
            time.sleep(self._delay)
        if failing:
            raise self._failure()
        text = self._answer(messages, params)
        return Completion(
            text=text,
            prompt_tokens=estimate_prompt_tokens(messages),
            completion_tokens=estimate_tokens(text),
            model=self._model,
            seconds=time.monotonic() - started,
        )

    def _answer(self, messages: list[Message], params: CompletionParams | None) -> str:
        responses = self._responses
        if isinstance(responses, str):
            return responses
        if isinstance(responses, Mapping):
            key = cache_key(self._model, messages, params)
            if key not in responses:
                raise LLMError(f"FakeLLM has no recorded response for request {key[:12]}…")
            return responses[key]
        if callable(responses):
            return responses(messages)
        with self._lock:
            index = self._next
            self._next += 1
        if index >= len(responses):
            raise LLMError(f"FakeLLM ran out of scripted responses after {len(responses)}")
        return responses[index]


def record(
    recorded: dict[str, str],
    messages: list[Message],
    text: str,
    *,
    model: str = "fake-llm",
    params: CompletionParams | None = None,
) -> None:
    """Add one recorded response for ``messages`` to a mapping a :class:`FakeLLM` answers from."""
    recorded[cache_key(model, messages, params)] = text
