"""What the free-text answers' parsers share: reading a reply that may be JSON or plain text,
and flattening the text they keep onto one line."""

from __future__ import annotations

from typing import Any

from anchormem.errors import LLMResponseError
from anchormem.llm.jsonrepair import clean_response, loads_lenient


def read_reply(text: str, *, empty: str, json_starts: str) -> tuple[str, Any]:
    """The reply without reasoning and fences, and its JSON value (``None`` for plain text).

    An empty reply raises :class:`LLMResponseError` with the message ``empty``; so does a reply
    that starts with a character of ``json_starts`` (it meant to be JSON) but cannot be read."""
    cleaned = clean_response(text)
    if not cleaned:
        raise LLMResponseError(empty)
    try:
        return cleaned, loads_lenient(cleaned)
    except LLMResponseError:
        if cleaned[0] in json_starts:
            raise
        return cleaned, None


def one_line(text: str, *, empty: str) -> str:
    """``text`` with its white space folded to single spaces; :class:`LLMResponseError` (message
    ``empty``) when nothing is left."""
    result = " ".join(text.split())
    if not result:
        raise LLMResponseError(empty)
    return result
