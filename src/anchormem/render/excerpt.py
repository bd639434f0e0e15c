"""The sentences of a long message that hold what a search matched.

A block of 4,000 characters holds six windows of 650 characters; a fact told in passing inside a long
request, a pasted letter or a 300-word reply is one sentence of it. Shown whole, the window spends the
budget on the other sentences and leaves out the next message that holds evidence; shown by "part 1 of 2"
it may miss the fact altogether. :func:`excerpt` keeps, of a message's text, the sentences that hold the
context's anchors (the offline anchors are the message's own sentences, "user: I work at Halden now";
an LLM's fact, "The user accepted the manager post at Hollins Pharmacy on 1 July 2025.", is no sentence of
the message but keeps its names, places and dates: it stands for the sentence that shares most of its
words, at least ``MIN_SHARED``), and where none does the sentence that shares most words with the
question, each with ``…`` where text is left out. The anchors that only ask ("How do I handle the old gift
cards?") come after those that state something: a question is shaped like the question searched for, so it
often ranks first, but it is a request and never holds the fact; the statement beside it does. Two anchor
sentences are kept, and a third that states something while the three stay within ``SHORT_CHARS``: a fact
told in passing is often the third anchor of its message ("Hi, I'm Helen." ranks first for "What is my
mother's name?", "…for my mum, Joan, who's 84…" third), and a short one costs the block little. A kept heading
or lead-in ("**An idea for sharing the load**") keeps the list items under it: the heading says what follows,
the items say it (:mod:`anchormem.render.layout`); a lead-in that ends with a colon ("…offered a date for your
operation as follows:") or a short title ("Start date and place of work") keeps the line after it when that line is
no list item ("Date of surgery: Wednesday 14 May 2025", "Your employment will commence on Monday 9 June 2025.").
A question that asks when (:func:`anchormem.render.mentions.asks_when`) keeps a sentence that says a date where no kept
one does: of those, the one sharing most words with the question, then the nearest to what was kept ("Head chef,
£44k…" keeps "I start Monday 6 October." for "When was her first day as head chef?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from anchormem._util.sentences import cut
from anchormem._util.words import FUNCTION_WORDS
from anchormem.render.layout import announces, is_heading, is_item
from anchormem.render.mentions import asks_when, says_date

_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+(?=\S)|\n+")
_SPEAKER = re.compile(r"^[^:\n]{1,60}:\s")
_CUT = "…"
MAX_UNITS = 2  # anchor sentences kept of one message; a third while they stay within SHORT_CHARS
SHORT_CHARS = 280
MIN_SHARED = 2  # words an LLM's fact shares with the sentence it stands for
MIN_WORDS = 3  # a sentence shorter than this joins the one before it
LIST_CHARS = 320  # of the list under a kept heading, the items kept while they stay within this


def units(text: str) -> list[str]:
    """``text`` cut into sentences and lines (a list item, a code line), short fragments joined to the one before."""
    out: list[str] = []
    for piece in cut(text, _SENTENCE):
        piece = piece.strip()
        if not piece:
            continue
        if out and len(_WORD.findall(piece)) < MIN_WORDS:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _terms(text: str) -> set[str]:
    return {w for w in (m.casefold() for m in _WORD.findall(text)) if w not in FUNCTION_WORDS and len(w) > 1}


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def asks(anchor: str) -> bool:
    """Whether every sentence of ``anchor`` (its speaker prefix dropped) is a question: it asks, states nothing."""
    said = units(_SPEAKER.sub("", anchor, count=1))
    return bool(said) and all(s.rstrip(" \"'”’)]").endswith("?") for s in said)


def choose(
    sentences: Sequence[str], anchors: Sequence[str], query: str, worded: Sequence[str] = (), dated: bool = False
) -> list[int]:
    """Indices (in order) of the sentences to keep: those that hold an anchor's text (its speaker prefix
    dropped), best anchor first among those that state something, then those that only ask (:func:`asks`), at
    most ``MAX_UNITS`` and one more that states something while they stay within ``SHORT_CHARS``; then the
    sentence sharing most terms with the question, where it shares any (ties: the earlier), or with the anchors
    where nothing else was kept; after a kept question ("What date had you agreed?") the sentence that follows
    it, its answer; and for a question that asks when (``dated``), a sentence that says a date where none kept
    does."""
    if not sentences:
        return []
    normed = [_norm(s) for s in sentences]
    keep: list[int] = []
    stating = [a for a in anchors if not asks(a)]
    for anchor in stating + [a for a in anchors if asks(a)]:
        said = _norm(_SPEAKER.sub("", anchor, count=1))
        if not said:
            continue
        for i, sentence in enumerate(normed):
            if i not in keep and (said in sentence or (len(sentence) > 20 and sentence in said)):
                if len(keep) < MAX_UNITS or (
                    anchor in stating and sum(len(sentences[j]) for j in keep) + len(sentences[i]) <= SHORT_CHARS
                ):
                    keep.append(i)
                break
        if len(keep) >= MAX_UNITS + 1:
            break
    for fact in worded:  # an LLM's fact, in its own words: the sentence that shares most of them
        if len(keep) >= MAX_UNITS:
            break
        words = _terms(fact)
        shared = [len(words & _terms(s)) if i not in keep else 0 for i, s in enumerate(sentences)]
        found = max(range(len(sentences)), key=lambda i: (shared[i], -i))
        if shared[found] >= MIN_SHARED:
            keep.append(found)
    asked = _terms(query)
    wanted = asked if keep else asked | {t for a in anchors for t in _terms(_SPEAKER.sub("", a, count=1))}
    overlap = [len(wanted & _terms(s)) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (overlap[i], -i))
    if best not in keep and (overlap[best] or not keep):
        keep.append(best)
    for i in list(keep):
        if sentences[i].rstrip().endswith("?") and i + 1 < len(sentences) and i + 1 not in keep:
            keep.append(i + 1)
    for i in list(keep):
        keep.extend(j for j in _listed(sentences, i) if j not in keep)
    if dated and not any(says_date(sentences[i]) for i in keep):
        dates = [i for i, sentence in enumerate(sentences) if i not in keep and says_date(sentence)]
        if dates:  # the date nearest what was kept, of those sharing most words with the question
            near = min(keep) if keep else 0
            keep.append(max(dates, key=lambda i: (overlap[i], -abs(i - near), -i)))
    return sorted(keep)


def _listed(sentences: Sequence[str], i: int) -> list[int]:
    """The list items right under ``sentences[i]`` when it is a heading or a lead-in ("**An idea for sharing
    the load**", "### Next steps", "Here's what I'd do:"), as many as stay within ``LIST_CHARS``: a heading
    says what follows, the items say it. After a lead-in that ends with a colon or a short title
    (:func:`~anchormem.render.layout.announces`), a line that is no item comes first (within ``LIST_CHARS``): it is
    what the lead-in announces; the items after it follow as under a heading."""
    out: list[int] = []
    size = 0
    start = i + 1  # the first sentence a list item may be taken from
    if start < len(sentences) and not is_item(sentences[start]) and announces(sentences[i]):
        if len(sentences[start]) > LIST_CHARS:
            return []
        out.append(start)  # "offered a date as follows:" keeps "Date of surgery: Wednesday 14 May 2025"
        size += len(sentences[start])
        start += 1
    elif not is_heading(sentences[i]):
        return []
    for j in range(start, len(sentences)):
        if not is_item(sentences[j]) or (out and size + len(sentences[j]) > LIST_CHARS):
            break
        out.append(j)
        size += len(sentences[j])
    return out


def excerpt(text: str, anchors: Sequence[str], query: str, worded: Sequence[str] = ()) -> str | None:
    """The sentences of ``text`` :func:`choose` keeps, joined, with ``…`` where text is left out; None when
    they are the whole text (nothing to leave out)."""
    sentences = units(text)
    keep = choose(sentences, anchors, query, worded, dated=asks_when(query))
    if len(keep) == len(sentences):
        return None
    parts: list[str] = []
    last = -1
    for i in keep:
        if i != last + 1:
            parts.append(_CUT)
        parts.append(sentences[i])
        last = i
    if last != len(sentences) - 1:
        parts.append(_CUT)
    return " ".join(parts)
