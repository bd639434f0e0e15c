"""The lines of the OpenAI Batch API's files, written and read.

Input (one request a line)::

    {"custom_id": "<sha256>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

Output (one answer a line, in any order)::

    {"id": "...", "custom_id": "<sha256>", "response": {"status_code": 200, "body": <chat.completion>},
     "error": null}

A request's ``custom_id`` is its cache key (:func:`anchormem.llm.keys.cache_key` of model, messages
and params), so the same request always maps to the same line and to the same cached answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from anchormem.llm.keys import cache_key
from anchormem.llm.protocol import CompletionParams, Message

__all__ = ["BATCH_URL", "BatchRequest", "LineProblem", "ResultLine", "read_result_line"]

BATCH_URL = "/v1/chat/completions"


@dataclass(frozen=True)
class BatchRequest:
    """One chat request as a line of a batch input file."""

    custom_id: str
    model: str
    messages: tuple[Message, ...]
    params: CompletionParams | None = None

    @classmethod
    def of(cls, model: str, messages: list[Message], params: CompletionParams | None = None) -> BatchRequest:
        """The request ``LLM.complete(messages, params)`` would send to ``model``."""
        return cls(cache_key(model, messages, params), model, tuple(dict(m) for m in messages), params)

    def body(self) -> dict[str, Any]:
        """The ``/v1/chat/completions`` body, as a live call sends it."""
        params = self.params or CompletionParams()
        return {"model": self.model, "messages": [dict(m) for m in self.messages], **params.as_dict()}

    def line(self) -> str:
        """The request as one JSONL line (no newline)."""
        record = {"custom_id": self.custom_id, "method": "POST", "url": BATCH_URL, "body": self.body()}
        return json.dumps(record, ensure_ascii=False)


@dataclass(frozen=True)
class LineProblem:
    """A line of a results file that gave no usable answer (``line`` counts from 1; 0 for a request
    that has no line at all)."""

    line: int
    custom_id: str | None
    kind: str  # "malformed", "unknown", "duplicate", "failed", "missing"
    detail: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "no line"
        who = f" ({self.custom_id[:16]}…)" if self.custom_id else ""
        return f"{where}{who}: {self.kind}: {self.detail}"


@dataclass(frozen=True)
class ResultLine:
    """A results line read: the request it answers and its ``chat.completion`` body."""

    line: int
    custom_id: str
    body: dict[str, Any]


def read_result_line(number: int, text: str) -> ResultLine | LineProblem | None:
    """One line of a results file: its answer, the problem that makes it unusable, or None (blank)."""
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        return LineProblem(number, None, "malformed", f"not JSON ({exc.msg} at column {exc.colno})")
    if not isinstance(record, dict):
        return LineProblem(number, None, "malformed", f"a JSON {type(record).__name__}, not an object")
    custom_id = record.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        return LineProblem(number, None, "malformed", "no custom_id")
    error = record.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        return LineProblem(number, custom_id, "failed", f"the batch reports an error: {str(message)[:160]}")
    response = record.get("response")
    if not isinstance(response, dict):
        return LineProblem(number, custom_id, "malformed", "no response object")
    status = response.get("status_code")
    if status != 200:
        return LineProblem(number, custom_id, "failed", f"status_code {status!r}")
    body = response.get("body")
    if not isinstance(body, dict):
        return LineProblem(number, custom_id, "malformed", "no response body")
    return ResultLine(number, custom_id, body)
