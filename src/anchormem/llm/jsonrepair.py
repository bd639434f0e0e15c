"""Reading JSON out of what a model actually writes.

Models wrap JSON in reasoning (``<think>…</think>``), code fences and prose, and
sometimes write it slightly wrong: trailing commas, single quotes, unescaped inner
quotes, or a list cut off by the token limit. :func:`loads_lenient` reads all of
these. It keeps the complete items of a truncated list or object and fails rather
than return an empty container made from a cut-off answer.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, TypeVar

from anchormem.errors import LLMResponseError

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERALS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"', "'": "'"}
_MAX_CANDIDATES = 32

_C = TypeVar("_C", list[Any], dict[str, Any])


def strip_reasoning(text: str) -> str:
    """Remove ``<think>…</think>`` blocks; a closing tag without an opening one drops
    everything before it, an opening tag never closed drops everything after it."""
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text


def strip_fences(text: str) -> str:
    """Remove Markdown code-fence markers (with their language tag), keeping the content."""
    return _FENCE.sub("", text)


def clean_response(text: str) -> str:
    """The answer without reasoning preamble and code fences, stripped."""
    return strip_fences(strip_reasoning(text)).strip()


def loads_lenient(text: str) -> Any:
    """The first JSON value (a list or an object) in ``text``, repaired if needed.

    Raises :class:`LLMResponseError` when no value can be read.
    """
    for candidate in (text, clean_response(text)):
        try:
            return json.loads(candidate)
        except ValueError:
            pass
    cleaned = clean_response(text)
    starts = [i for i, ch in enumerate(cleaned) if ch in "[{"][:_MAX_CANDIDATES]
    for start in starts:
        try:
            return _Parser(cleaned, start).value()
        except (_Bad, _Truncated):
            continue
    snippet = " ".join(cleaned.split())[:120] or "(empty)"
    raise LLMResponseError(f"no readable JSON in the model's answer: {snippet!r}")


class _Bad(Exception):
    """Not JSON here."""


class _Truncated(Exception):
    """The text ended inside a value."""


class _Parser:
    """A forgiving recursive-descent JSON reader, starting at one position."""

    def __init__(self, text: str, start: int) -> None:
        self.s = text
        self.i = start
        self.n = len(text)

    def value(self) -> Any:
        self._ws()
        if self.i >= self.n:
            raise _Truncated
        ch = self.s[self.i]
        if ch == "[":
            return self._array()
        if ch == "{":
            return self._object()
        if ch in "\"'":
            return self._string(ch)
        if ch == "-" or ch.isdigit():
            return self._number()
        return self._literal()

    def _ws(self) -> None:
        while self.i < self.n and self.s[self.i].isspace():
            self.i += 1

    def _eof(self) -> bool:
        self._ws()
        return self.i >= self.n

    def _array(self) -> list[Any]:
        self.i += 1
        items: list[Any] = []
        while (at := self._next_item("]")) == "item":
            try:
                items.append(self.value())
            except _Truncated:
                return _kept(items)
        return items if at == "closed" else _kept(items)

    def _object(self) -> dict[str, Any]:
        self.i += 1
        pairs: dict[str, Any] = {}
        while (at := self._next_item("}")) == "item":
            try:
                key = self._key()
                if self._eof():
                    raise _Truncated
                if self.s[self.i] != ":":
                    raise _Bad
                self.i += 1
                pairs[key] = self.value()
            except _Truncated:
                return _kept(pairs)
        return pairs if at == "closed" else _kept(pairs)

    def _next_item(self, close: str) -> Literal["item", "closed", "end"]:
        """Inside a list or object, skip commas: ``item`` where the next member starts,
        ``closed`` just past ``close``, ``end`` where the text ends (a cut-off container)."""
        while not self._eof():
            ch = self.s[self.i]
            if ch == close:
                self.i += 1
                return "closed"
            if ch != ",":
                return "item"
            self.i += 1
        return "end"

    def _key(self) -> str:
        ch = self.s[self.i]
        if ch in "\"'":
            return self._string(ch)
        match = _BARE_KEY.match(self.s, self.i)
        if not match:
            raise _Bad
        self.i = match.end()
        return match.group()

    def _string(self, quote: str) -> str:
        self.i += 1
        out: list[str] = []
        while True:
            if self.i >= self.n:
                raise _Truncated
            ch = self.s[self.i]
            if ch == "\\":
                if self.i + 1 >= self.n:
                    raise _Truncated
                esc = self.s[self.i + 1]
                if esc == "u":
                    digits = self.s[self.i + 2 : self.i + 6]
                    if len(digits) < 4:
                        raise _Truncated
                    out.append(self._unicode_escape(digits))
                    continue
                out.append(_ESCAPES.get(esc, esc))
                self.i += 2
                continue
            if ch == quote and self._closes(self.i + 1):
                self.i += 1
                return "".join(out)
            out.append(ch)
            self.i += 1

    def _unicode_escape(self, digits: str) -> str:
        """Decode ``\\uHHHH`` at ``self.i`` (joining a surrogate pair) and move past it."""
        code = _hex(digits)
        self.i += 6
        if 0xD800 <= code < 0xDC00 and self.s.startswith("\\u", self.i):
            low_digits = self.s[self.i + 2 : self.i + 6]
            if len(low_digits) < 4:
                raise _Truncated
            low = _hex(low_digits)
            if 0xDC00 <= low < 0xE000:
                self.i += 6
                return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
        return chr(code)

    def _closes(self, j: int) -> bool:
        # A quote ends the string only where JSON can go on: before , ] } : or the end.
        # Otherwise it is an unescaped inner quote or an apostrophe ('Caroline's').
        while j < self.n and self.s[j].isspace():
            j += 1
        return j >= self.n or self.s[j] in ",]}:"

    def _number(self) -> int | float:
        match = _NUMBER.match(self.s, self.i)
        if not match:
            raise _Bad
        if match.end() >= self.n:
            raise _Truncated  # the number may have been cut
        self.i = match.end()
        text = match.group()
        return float(text) if any(c in text for c in ".eE") else int(text)

    def _literal(self) -> Any:
        rest = self.s[self.i : self.i + 5]
        for word, value in _LITERALS.items():
            if rest.startswith(word):
                self.i += len(word)
                return value
            if self.i + len(rest) >= self.n and word.startswith(rest):
                raise _Truncated
        raise _Bad


def _kept(container: _C) -> _C:
    """What a cut-off container keeps: its complete items. An empty one counts as cut
    off itself, so that a cut-off answer never reads as an empty list."""
    if not container:
        raise _Truncated
    return container


def _hex(digits: str) -> int:
    try:
        return int(digits, 16)
    except ValueError:
        raise _Bad from None
