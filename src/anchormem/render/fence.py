"""The data fence every prompt anchormem builds shares: stored text goes between tags it cannot close.

Text a user stored (a message, a fact, an event, a question, an answer being graded) is data. Each
prompt puts it between ``<name>`` and ``</name>`` (:func:`fenced`), indents every data line by two
spaces (the template's own lines, ``Question:``, ``Answer:``, ``How to answer:``, start at column 0,
so no stored line can pose as one of them), and defuses what could end or open a fence early:

- a look-alike of a fence tag's ``<`` becomes ``‹``: ``<``, fullwidth ``＜``, small form ``﹤``,
  angle brackets (``〈``, ``⟨``, ``❮``, ``˂``, ``ᐸ``), the entities ``&lt;``, ``&#60;``, ``&#x3c;``, also
  when the tag's name hides zero-width characters, soft hyphens or combining marks, uses fullwidth or
  Cyrillic/Greek look-alike letters, or odd case (:func:`defuse`);
- Unicode TAG characters (U+E0000–U+E007F, invisible ASCII) are dropped;
- line separators other than ``\\n`` (U+2028, U+2029, U+0085, ``\\r``, ``\\v``, ``\\f``, U+001C–U+001E)
  never reach the prompt as line breaks: a one-line field (a date, an id, a speaker, a question)
  folds all white space to single spaces (:func:`one_line`), a block breaks lines only at ``\\n``
  and turns the others into spaces (:func:`lines`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

FENCE_TAGS = ("memories", "events", "excerpt", "excerpts", "fact", "question", "gold", "generated", "data")
"""The names a fence may carry; a look-alike of any of them, opening or closing, is defused."""
DEFUSED = "‹"
_TAG_CHARS = re.compile("[\U000e0000-\U000e007f]")
_BREAKS = re.compile("[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_NAMES = "|".join(sorted(FENCE_TAGS, key=len, reverse=True))
_TAG = re.compile(rf"<(?=\s*/?\s*(?:{_NAMES})(?![a-z]))", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:lt|#0*60|#x0*3c);?", re.IGNORECASE)
_OPENERS = "<\uff1c\ufe64\u2329\u3008\u27e8\u276e\u02c2\u1438"
_SUSPECT = re.compile(rf"[{_OPENERS}]|&(?:lt|#0*60|#x0*3c)", re.IGNORECASE)
_CONFUSABLE = str.maketrans(
    {
        **dict(zip("аеорсхуіѕјԁӏԛԝ", "aeopcxyisjdlqw", strict=True)),  # Cyrillic small letters
        **dict(zip("АВЕКМНОРСТХІЅЈ", "ABEKMHOPCTXISJ", strict=True)),  # Cyrillic capitals
        **dict(zip("οναικρτυχΟΑΒΕΗΙΚΜΝΡΤΧΥΖ", "ovaikptuxOABEHIKMNPTXYZ", strict=True)),  # Greek
        **dict.fromkeys(_OPENERS, "<"),
    }
)


def defuse(text: str) -> str:
    """``text`` with every look-alike of a fence tag's ``<`` turned into ``‹`` and TAG characters
    dropped; nothing else changes."""
    text = _TAG_CHARS.sub("", text)
    if text.isascii():
        return _TAG.sub(DEFUSED, _ENTITY.sub(lambda m: _defused_entity(text, m), text))
    if not _SUSPECT.search(text):
        return text
    skeleton, origin = _skeleton(text)
    cut = sorted({origin[m.start()] for m in _TAG.finditer(skeleton)})
    if not cut:
        return text
    out: list[str] = []
    at = 0
    for start, end in cut:
        out.extend((text[at:start], DEFUSED))
        at = end
    out.append(text[at:])
    return "".join(out)


def _defused_entity(text: str, match: re.Match[str]) -> str:
    """An entity for ``<`` that opens a fence tag becomes ``‹``; any other stays as it is."""
    rest = text[match.end() : match.end() + 40]
    return DEFUSED if _TAG.match("<" + rest) else match.group()


def _skeleton(text: str) -> tuple[str, list[tuple[int, int]]]:
    """What ``text`` reads as (NFKC, look-alike letters and brackets mapped, invisible format
    characters and combining marks dropped, ``<`` entities as ``<``), with each skeleton
    character's span in ``text``."""
    chars: list[str] = []
    origin: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if text[i] == "&":
            entity = _ENTITY.match(text, i)
            if entity is not None:
                chars.append("<")
                origin.append((i, entity.end()))
                i = entity.end()
                continue
        for folded in _fold(text[i]):
            chars.append(folded)
            origin.append((i, i + 1))
        i += 1
    return "".join(chars), origin


@functools.lru_cache(maxsize=8192)
def _fold(c: str) -> str:
    """What one character reads as: NFKC with look-alikes mapped; nothing for an invisible format
    character or a combining mark."""
    if unicodedata.category(c) in _INVISIBLE:
        return ""
    folded = unicodedata.normalize("NFKC", c.translate(_CONFUSABLE)).translate(_CONFUSABLE)
    return "".join(f for f in folded if unicodedata.category(f) not in _INVISIBLE)


_INVISIBLE = ("Cf", "Mn", "Me")


def one_line(text: str) -> str:
    """A one-line field: defused, every run of white space (line separators included) one space."""
    return " ".join(defuse(text).split())


def flat(text: str) -> str:
    """Text kept on its line: defused, every line break (``\\n`` included) a space."""
    return _BREAKS.sub(" ", defuse(text)).replace("\n", " ")


def lines(text: str) -> list[str]:
    """A block's lines: defused, broken only at ``\\n`` (other line separators become spaces)."""
    return _BREAKS.sub(" ", defuse(text.strip())).split("\n")


def fenced(name: str, text: str) -> str:
    """``text`` as data between ``<name>`` and ``</name>``, each line indented by two spaces."""
    if name not in FENCE_TAGS:
        raise ValueError(f"unknown fence {name!r}")
    return "\n".join([f"<{name}>", fenced_body(text), f"</{name}>"])


def fenced_body(text: str) -> str:
    """The lines of ``text`` as :func:`fenced` writes them between its tags (each indented by two spaces): the
    form in which a prompt holds a stored text, so forgetting can find it in a cached request."""
    return "\n".join(f"  {line}" if line.strip() else "" for line in lines(text))
