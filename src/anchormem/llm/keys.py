"""The cache key of one chat request: the same for the response cache and recorded fakes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from anchormem.llm.protocol import CompletionParams, Message


def request_payload(model: str, messages: list[Message], params: CompletionParams | None) -> dict[str, Any]:
    """The parts of a request that determine its answer, as plain JSON-able data."""
    return {
        "model": model,
        "messages": [dict(m) for m in messages],
        "params": params.as_dict() if params is not None else None,
    }


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(model: str, messages: list[Message], params: CompletionParams | None = None) -> str:
    """sha256 (hex) of the canonical JSON of (model, messages, params)."""
    text = canonical_json(request_payload(model, messages, params))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token) for servers that report no usage."""
    return (len(text) + 3) // 4 if text else 0


def estimate_prompt_tokens(messages: list[Message]) -> int:
    # a few tokens of chat-template overhead per message
    return sum(estimate_tokens(m.get("content", "")) + 4 for m in messages)
