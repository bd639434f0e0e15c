"""Citations that hold when the reader does not follow the format.

The reader is asked to cite the turn ids it used; a small model often answers ("Denver") and cites
nothing, or ids it was not shown. Then the answer is mapped back to the turns whose words it uses: each
turn of the memories shown to the reader is scored by the share of the answer's content words (stems,
numbers; see :func:`anchormem.ingest.grounding.word_keys`) it holds; the turns with the best share are
cited when that share is at least :data:`MIN_SHARE`. ``Answer.citation`` says which way the ids came:
``reader``, ``matched`` (from the answer's words) or ``none`` (no turn holds enough of them; the ids are
empty and the answer is not backed by a quotable turn).

This is the answer pipeline's reader step.
"""

from __future__ import annotations

from dataclasses import replace

from anchormem._util.words import word_keys
from anchormem.model import Answer, SearchResult

MIN_SHARE = 0.5
"""The least share of the answer's content words a turn must hold to be cited for it."""
MOST = 3
"""The most turns cited from the answer's words."""


def turn_texts(memories: SearchResult) -> dict[str, str]:
    """Each shown turn's line, read from its context's text (one line per turn after the DATE line);
    a context whose lines do not match its turns gives its whole text to each of them."""
    out: dict[str, str] = {}
    for hit in memories.contexts:
        lines = hit.context.text.strip().splitlines()
        body = lines[1:] if lines and lines[0].startswith("DATE:") else lines
        ids = hit.context.turn_ids
        pairs = zip(ids, body, strict=True) if len(body) == len(ids) else ((t, hit.context.text) for t in ids)
        for tid, text in pairs:
            out.setdefault(tid, text)
    return out


def cite(answer: Answer) -> Answer:
    """``answer`` with citations: the reader's when it gave valid ones, else the turns its words match."""
    if answer.cited_turn_ids:
        return replace(answer, citation="reader")
    wanted = word_keys(answer.text)
    texts = turn_texts(answer.memories)
    if not wanted or not texts:
        return replace(answer, citation="none")
    shares = {tid: len(wanted & word_keys(text)) / len(wanted) for tid, text in texts.items()}
    best = max(shares.values())
    if best < MIN_SHARE:
        return replace(answer, citation="none")
    cited = tuple(tid for tid, share in shares.items() if share == best)[:MOST]
    return replace(answer, cited_turn_ids=cited, citation="matched")
