"""Questions about how things were before a change, without an LLM.

"Where did the user live before Utrecht?" names the change (Utrecht): its words find the move and
what followed it, so the best-scored contexts are about the new state, while the answer was said
before the change was ever mentioned (a houseboat in Amsterdam, in the first session). The rule:

- the question's ``before …`` clause names the change; the session where the clause's most specific
  word (the rarest in the conversation) first occurs is when the change came up (:func:`change_time`);
- the rest of the question is its subject ("Where did the user live?"), put in the voice of the
  speaker it names ("Where did I live?", :mod:`anchormem.text.voice`): the speaker said it in the
  first person (:func:`subject_query`);
- the speaker's statements from the sessions before the change are ranked by that subject; the
  contexts of the best ``PROMOTE_EARLIER`` gain the rerank bound (the ``before-change`` stage of
  :mod:`anchormem.search.rerank.stage`: bounded like every stage, so a weak context is not lifted over a strong
  one). A statement is an anchor that is not a question and not the assistant's words (offline anchors
  start with their speaker: "assistant: Noted.").

Questions without a ``before …`` clause, or whose change is never mentioned or is mentioned in the
first session already, are left alone. Languages: English only (the ``before`` clause, the voice).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from anchormem.index.ann import MIN_CANDIDATES, ranked_facts
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.search.rerank.recency import timeline
from anchormem.search.rerank.stage import Candidates
from anchormem.text.dates import parse_when
from anchormem.text.person import question_speaker
from anchormem.text.voice import in_voice

PROMOTE_EARLIER = 2  # contexts of the best statements from before the change, put first
SUBJECT_CANDIDATES = MIN_CANDIDATES  # statements read through a big scope's index (``query.ann``); else all
_MEASURES = re.compile(r"^\s*how\s+(?:long|many|much|often)\b", re.IGNORECASE)  # a duration or count, not a state
_BEFORE = re.compile(r"^(?P<head>.*?)\s*\bbefore\s+(?P<change>[^?]*?)\s*\??\s*$", re.IGNORECASE | re.DOTALL)


def is_statement(anchor: str) -> bool:
    """Whether an anchor states something: not a question ("…?") and not the assistant's words (an
    anchor taken from a turn starts with its speaker: "assistant: Noted, no coffee.")."""
    text = anchor.strip()
    return not text.endswith("?") and not text.lower().startswith("assistant:")


def closest_statements(
    snapshot: ScopeSnapshot,
    scores: npt.NDArray[np.float64],
    facts: Iterable[int],
    keep: Callable[[int, int], bool] | None = None,
) -> dict[int, float]:
    """Per context row, the score of its first statement among ``facts`` (given best first): questions and
    the assistant's words are no statements (:func:`is_statement`), and ``keep(fact, row)`` may leave
    out more."""
    fact_context = snapshot.fact_context
    best: dict[int, float] = {}
    for fact in facts:
        row = int(fact_context[fact])
        if row < 0 or row in best or not is_statement(snapshot.facts[fact].text):
            continue
        if keep is None or keep(int(fact), row):
            best[row] = float(scores[fact])
    return best


def split_before(query: str) -> tuple[str, str] | None:
    """("Where did the user live?", "Utrecht") for "Where did the user live before Utrecht?"; None
    without a ``before …`` clause that ends the question, with nothing before it, when the clause is
    a date ("… the Sunday before October 25, 2022?": a time, not a change) or when the question
    asks for a duration or a count ("How long did they date before…?")."""
    found = _BEFORE.match(query.strip())
    if found is None or _MEASURES.match(query):
        return None
    head, change = found.group("head").strip(), found.group("change").strip()
    if not head or not change or any(ch.isdigit() for ch in change) or parse_when(change) is not None:
        return None
    return head.rstrip(" ,") + "?", change


def subject_query(snapshot: ScopeSnapshot, query: str) -> str | None:
    """The subject of a question about before a change, in the voice of the speaker it names
    ("Where did the user live before Utrecht?" -> "Where did I live?"); None for other questions."""
    parts = split_before(query)
    if parts is None or not snapshot.facts:
        return None
    head = parts[0]
    speaker = question_speaker(head, snapshot.speakers, snapshot.user_names)
    return head if speaker is None else in_voice(head, speaker)


def change_time(snapshot: ScopeSnapshot, change: str) -> float | None:
    """The time of the first session whose contexts hold the change's most specific word (its
    rarest term in the conversation's contexts); None when none of its words occurs."""
    index = snapshot.context_bm25
    terms = index.query_terms(change)
    if not terms:
        return None
    idf = index.idf
    rarest = max(terms, key=lambda t: float(idf[t]))  # the first of equally rare terms in the change's words
    rows = np.flatnonzero(index.scores_for_terms([rarest]) > 0)
    if rows.size == 0:
        return None
    line = timeline(snapshot)
    return min(line.session_time[int(r)] for r in rows)


def earlier_statements(
    snapshot: ScopeSnapshot,
    query: str,
    subject_vector: npt.NDArray[np.float32] | None,
    relevance: npt.NDArray[np.float64],
) -> list[int]:
    """The rows to put first because ``query`` asks about before a change, best first; [] for other
    queries. ``subject_vector`` is the embedding of :func:`subject_query`'s text."""
    parts = split_before(query)
    if parts is None or subject_vector is None or not snapshot.facts or relevance.size == 0:
        return []
    cut = change_time(snapshot, parts[1])
    if cut is None:
        return []
    line = timeline(snapshot)
    said_by = snapshot.fact_speakers
    speaker = question_speaker(parts[0], snapshot.speakers, snapshot.user_names)

    def before_and_by_speaker(fact: int, row: int) -> bool:
        return line.session_time[row] < cut and (speaker is None or said_by[fact] in (None, speaker))

    products, candidates = ranked_facts(snapshot, np.asarray(subject_vector, dtype=np.float32), SUBJECT_CANDIDATES)
    scores = np.asarray(products, dtype=np.float64)
    order = np.lexsort((np.arange(scores.size), -scores)) if candidates is None else candidates
    best = closest_statements(snapshot, scores, order, before_and_by_speaker)
    ranked = sorted(best, key=lambda r: (-best[r], -float(relevance[r]), r))
    return ranked[:PROMOTE_EARLIER]


class BeforeChange:
    """The ``before-change`` stage (module docstring)."""

    name: ClassVar[str] = "before-change"
    languages: ClassVar[tuple[str, ...]] = ("en",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        rows = earlier_statements(
            candidates.snapshot, candidates.query, candidates.subject_vector, candidates.relevance
        )
        if rows:
            candidates.notes[self.name] = "the closest statements of the named speaker from before the change"
        return {row: candidates.bound for row in rows}
