"""The ``tense`` stage (English): a question about the present or the past says how much time should count.

The ``recency`` stage (:mod:`anchormem.search.rerank.recency`) raises the latest statement on a subject by the bound
for every question. Read in English, a question says more: "Where does the user live now?" and "What is
his job?" ask about the present (the latest statement should win: this stage adds the bound again), while
"Where did she work before?", "What car did he drive at first?" or "used to" ask about the past (this stage
takes the recency stage's raise back, so the plain ranking stands). A question that gathers over time
("What books has she read?", "How many…"), compares people, or names a date is about neither, and a
question in another language is not read at all: both leave the ranking as the other stages made it.

Languages: English only (``languages = ("en",)``); the words are listed below.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from anchormem.search.rerank.recency import latest_of_subject
from anchormem.search.rerank.stage import Candidates
from anchormem.text.dates import parse_when

_NOW = re.compile(
    r"\b(now|currently|current|these days|nowadays|at the moment|at present|still|any ?more|today|"
    r"lately|latest|most recent|recently|this year)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(did|was|were|had|used to|before|previously|originally|at first|first|ago|last (?:year|month|week)|"
    r"formerly|earlier|back then|back when|when|in (?:19|20)\d\d|since when)\b",
    re.IGNORECASE,
)
_DATED = re.compile(r"\b(?:19|20)\d\d\b")  # a question naming a year asks about that time
_PRESENT_VERB = re.compile(
    r"^\s*(?:(?:what|where|who|whom|which|how|why)\b[^?]*?\b)?(does|do|is|are|can|'s)\b", re.IGNORECASE
)
# questions that gather over time rather than ask for one current state ("What books has she read?",
# "What shelters does Maria volunteer at?", "What are his goals?", "How many hikes…", "ever"), or ask
# what someone said once ("How does Nate describe…"), or compare people ("Do Kate and Elise have the
# same taste?", "…each other")
_GATHERS = re.compile(
    r"\b(?:what|which)\s+(?:kinds?\s+of\s+|types?\s+of\s+|sorts?\s+of\s+)?(?:\w+\s+)?\w+s\s+(?:do|does|did|has|have|is|are)\b"
    r"|\b(?:what|which)\s+are\b|\bhow\s+many\b|\bhow\s+often\b|\bever\b"
    r"|\b(?:describe|say|mention|explain|tell|call|recommend|suggest)\b"
    r"|\b(?:do|does|did|are|is|were|was|have|has)\s+\w+\s+and\s+\w+\b|\b(?:same|each other|both|in common)\b"
    r"|\b(?:has|have)\s+(?!(?:a|an|the|any|no|some|one)\b)\w+(?:'s)?\s+\w+(?:ed|en|t)\b",
    re.IGNORECASE,
)


def asks_present(query: str) -> bool:
    """Whether ``query`` asks about how things are now: it says so ("now", "currently", "still",
    "anymore"…), or it is in the present tense ("Does the user…", "Where does she live?", "What is his
    job?") without pointing to the past ("did", "was", "before", "used to", "when"…). A question
    that gathers over time ("What books has she read?", "What shelters does she volunteer at?",
    "How many…", "ever"), asks what was said ("How does he describe…"), compares people ("Do Kate and
    Elise like the same food?") or names a date is not about the present: every instance counts,
    not the latest."""
    if _GATHERS.search(query) or _DATED.search(query) or parse_when(query) is not None:
        return False
    if _NOW.search(query):
        return True
    if _PAST.search(query):
        return False
    return _PRESENT_VERB.search(query) is not None


_ENGLISH = re.compile(
    r"\b(?:the|a|an|is|are|was|were|does|do|did|has|have|what|where|who|which|how|when|why|of|to|in|with)\b",
    re.IGNORECASE,
)


def reads_english(query: str) -> bool:
    """Whether ``query`` reads as English: two of its words are common English function words."""
    return len(_ENGLISH.findall(query)) >= 2


def asks_past(query: str) -> bool:
    """Whether ``query`` asks how things were ("did", "was", "before", "used to", "at first"…) and not how
    they are now."""
    return bool(_PAST.search(query)) and not _NOW.search(query) and not _GATHERS.search(query)


class Tense:
    """The ``tense`` stage (module docstring)."""

    name: ClassVar[str] = "tense"
    languages: ClassVar[tuple[str, ...]] = ("en",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        query = candidates.query
        if not reads_english(query):
            return {}
        if asks_present(query):
            rows = latest_of_subject(candidates)
            if rows:
                candidates.notes[self.name] = "the question asks about the present: the latest statement counts more"
            return {row: candidates.bound for row in rows}
        if asks_past(query):
            raised = {
                row: -candidates.given(row, "recency") for row in candidates.rows if candidates.given(row, "recency")
            }
            if raised:
                candidates.notes[self.name] = "the question asks about the past: recency takes no part"
            return raised
        return {}
