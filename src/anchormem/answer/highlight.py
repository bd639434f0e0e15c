"""Where an anchor (a fact) and the query sit inside a context's original words.

A fact is a search key, not the memory: the reader gets the context's own words. To show which words
an anchor stands for, :func:`anchor_spans` finds it in the context text: an LLM-free anchor
(``"Ana: I adopted a dog."``) is a sentence of a turn and is found verbatim; an LLM-written fact is
matched word by word (the context's words whose stem the fact shares, stop words left out).
:func:`term_spans` marks the words the query shares with the text (what the lexical signal saw).
Spans are character offsets into the text, non-overlapping and sorted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from anchormem.text.lexical import tokenize

_WORD = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?")
_SPEAKER = re.compile(r"^[^:\n]{1,80}:\s+")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: str  # "anchor" or "term"
    anchor: int = -1  # index of the anchor (kind "anchor")


def anchor_spans(text: str, anchors: Sequence[str]) -> list[Span]:
    """Spans of ``text`` that each anchor stands for (the first anchor wins where two overlap)."""
    spans: list[Span] = []
    for i, anchor in enumerate(anchors):
        found = _verbatim(text, anchor)
        if found is not None:
            spans.append(Span(found[0], found[1], "anchor", i))
            continue
        stems = set(tokenize(anchor))
        spans.extend(Span(s, e, "anchor", i) for s, e in _words_with_stems(text, stems, skip_header=True))
    return _disjoint(spans)


def term_spans(text: str, query: str) -> list[Span]:
    """Spans of the words of ``text`` that share a stem with a word of ``query``."""
    stems = set(tokenize(query))
    return [Span(s, e, "term") for s, e in _words_with_stems(text, stems, skip_header=False)]


def _verbatim(text: str, anchor: str) -> tuple[int, int] | None:
    """The anchor's own words found in the text (case-insensitive), speaker prefix dropped."""
    body = _SPEAKER.sub("", anchor.strip(), count=1).strip()
    if len(body) < 8:
        return None
    at = text.lower().find(body.lower())
    return (at, at + len(body)) if at >= 0 else None


def _words_with_stems(text: str, stems: set[str], *, skip_header: bool) -> list[tuple[int, int]]:
    if not stems:
        return []
    start = text.find("\n") + 1 if skip_header and text.startswith("DATE:") else 0
    out = []
    for match in _WORD.finditer(text, start):
        tokens = tokenize(match.group(0))
        if tokens and tokens[0] in stems:
            out.append((match.start(), match.end()))
    return out


def _disjoint(spans: list[Span]) -> list[Span]:
    """Sorted by start; a span overlapping one kept before it (lower anchor index first) is dropped."""
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.anchor, s.start)):
        if all(span.end <= k.start or span.start >= k.end for k in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s.start)
