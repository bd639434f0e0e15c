"""Structured answers: call the LLM, clean and repair its output, parse it, and ask
again when it cannot be read. A failure is reported, never turned into an empty result."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import TypeVar

from anchormem.errors import LLMResponseError
from anchormem.llm.jsonrepair import clean_response, loads_lenient
from anchormem.llm.protocol import LLM, CompletionParams, Message

T = TypeVar("T")

RETRY_INSTRUCTION = (
    "Your previous answer could not be read ({error}). Answer again with only valid JSON "
    "in the requested format: no explanation, no code fences."
)
_ECHO_LIMIT = 2000


class UnparsableResponseError(LLMResponseError):
    """The model kept answering text that could not be parsed; ``raw`` is its last answer."""

    def __init__(self, message: str, raw: str, attempts: int) -> None:
        super().__init__(message)
        self.raw = raw
        self.attempts = attempts


def parse_response(raw: str, parse: Callable[[str], T]) -> T:
    """Apply ``parse`` to the repaired JSON found in ``raw``, else to the cleaned text.

    Raises :class:`LLMResponseError` when neither can be parsed.
    """
    cleaned = clean_response(raw)
    candidates: list[str] = []
    with contextlib.suppress(LLMResponseError):
        candidates.append(json.dumps(loads_lenient(raw), ensure_ascii=False))
    if cleaned not in candidates:
        candidates.append(cleaned)
    first_error = ""
    for candidate in candidates:
        try:
            return parse(candidate)
        except (LLMResponseError, ValueError, TypeError, KeyError) as exc:
            first_error = first_error or (str(exc) or type(exc).__name__)
    raise LLMResponseError(first_error)


def complete_parsed(
    llm: LLM,
    messages: list[Message],
    parse: Callable[[str], T],
    params: CompletionParams | None = None,
    attempts: int = 3,
) -> T:
    """Ask ``llm`` and return ``parse`` of its cleaned, repaired answer.

    On a parse failure the request is sent again with the bad answer and a short
    "answer only with valid JSON" message, up to ``attempts`` calls in all; then
    :class:`UnparsableResponseError` (an :class:`LLMResponseError`) carries the last raw
    answer. Errors of the LLM itself (e.g. :class:`LLMUnavailableError`) pass through.
    """
    attempts = max(1, attempts)
    raw = ""
    error = ""
    for attempt in range(attempts):
        request = messages if attempt == 0 else _retry_messages(messages, raw, error)
        raw = llm.complete(request, params).text
        try:
            return parse_response(raw, parse)
        except LLMResponseError as exc:
            error = str(exc)
    snippet = " ".join(raw.split())[:160] or "(empty)"
    calls = "1 call" if attempts == 1 else f"{attempts} calls"
    raise UnparsableResponseError(
        f"unreadable answer from {llm.model} after {calls}: {error}; last answer began {snippet!r}",
        raw=raw,
        attempts=attempts,
    )


def _retry_messages(messages: list[Message], raw: str, error: str) -> list[Message]:
    previous = clean_response(raw)[:_ECHO_LIMIT] or "(empty answer)"
    reason = " ".join(error.split())[:200] or "invalid format"
    return [
        *messages,
        {"role": "assistant", "content": previous},
        {"role": "user", "content": RETRY_INSTRUCTION.format(error=reason)},
    ]
