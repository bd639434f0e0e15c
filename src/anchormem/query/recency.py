"""Statements that change over time: which of the matching statements is the latest, without an LLM.

A conversation that lasts months says things that later stop being true ("I don't drink coffee" in
January, "I switched back to coffee" in October). Two query-time rules handle it:

- **Recency for questions about the present.** When the question asks how things are now ("Does the user
  drink coffee?", "Where does she live now?"; see :func:`asks_present`), its subject is its
  ``SUBJECT_ANCHORS`` best anchors by meaning, read as statements: a question ("Any tips for a job
  interview?") and the assistant's words ("Noted, no coffee.") state nothing about how things are
  (:func:`is_statement`). The two latest sessions among the contexts holding those statements put
  contexts first: the one with the closest statement of each (latest first). They take the places of the
  lowest-scored others if the result is full, but never the place of the best-scored one. The latest
  statement is then returned even when older ones match the words better or say the same thing more
  often ("I've started on flat whites again" is only the 8th anchor closest to "Does the user drink
  coffee?", after older turns saying "I don't drink coffee", and its context scores low). Two sessions,
  because without an LLM a statement cannot be told from a passing one ("one every morning before work")
  and the change was often said in the session before. Without anchors, the subject is the strongest
  normalised signal (:func:`latest_on_subject`). Questions about the past ("When did…", "…before…",
  "used to…"; a question about before a change has its own rule, :mod:`anchormem.query.earlier`),
  questions that gather over time ("What books has she read?", "How many…") and questions naming a date
  are left alone.
- **Dates compared in the result.** Among the returned contexts on the query's subject (those
  holding the statements the rule weighed, or without the rule a score at least ``ON_SUBJECT`` of
  the best returned), each one learns which of the others come from a later
  session (``ContextHit.newer``) and whether it is the latest (``ContextHit.latest``).

Time is the session's date as stored (:func:`anchormem.query.dates.parse_when`); where no date can be
read, conversation order stands in for it.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from anchormem.query.dates import parse_when
from anchormem.query.snapshot import ScopeSnapshot

_EPOCH = datetime(1970, 1, 1)
PROMOTE_ON_SUBJECT = 0.5  # share of the best subject score that makes a context a candidate for promotion
PROMOTE_SESSIONS = 2  # the latest sessions on the subject that each put their most on-subject context first
PROMOTE_LATEST = 2  # without anchors: contexts the latest of them puts first (two: windows overlap by a turn)
ON_SUBJECT = 0.6  # share of the best score a context needs to count as being about the query's subject
COMPARED_ON_SUBJECT = 0.7  # share of the best subject score that makes a returned context compared with the promoted
SUBJECT_ANCHORS = 10  # the query's best anchors by meaning that make its subject (as many as §4.3's top facts)

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


@dataclass(frozen=True)
class Timeline:
    """Per context row: the time key of its session (comparable across rows) and its session label."""

    session_time: tuple[float, ...]
    session: tuple[str, ...]


_TIMELINES: weakref.WeakKeyDictionary[ScopeSnapshot, Timeline] = weakref.WeakKeyDictionary()


def timeline(snapshot: ScopeSnapshot) -> Timeline:
    """The snapshot's :class:`Timeline` (computed once per snapshot).

    A session's time is the earliest date read from its contexts. If any session has no readable
    date, every session's time is its first row in conversation order instead (dates and positions
    are not comparable). A session is its label within its scope: when a search covers sub-scopes,
    an agent's session "3" is not the user's session "3".
    """
    cached = _TIMELINES.get(snapshot)
    if cached is not None:
        return cached
    keys = [(snapshot.scope_of(row), c.session) for row, c in enumerate(snapshot.contexts)]
    first_row: dict[tuple[object, str], int] = {}
    earliest: dict[tuple[object, str], float] = {}
    for row, (key, context) in enumerate(zip(keys, snapshot.contexts, strict=True)):
        first_row.setdefault(key, row)
        when = parse_when(context.date)
        if when is not None:
            stamp = (when - _EPOCH).total_seconds()
            earliest[key] = min(stamp, earliest.get(key, stamp))
    dated = len(earliest) == len(first_row)
    times = earliest if dated else {k: float(r) for k, r in first_row.items()}
    made = Timeline(session_time=tuple(times[k] for k in keys), session=tuple(c.session for c in snapshot.contexts))
    _TIMELINES[snapshot] = made
    return made


def on_subject(subject: npt.NDArray[np.float64], share: float = PROMOTE_ON_SUBJECT) -> list[int]:
    """The rows on the query's subject: ``subject`` at least ``PROMOTE_ON_SUBJECT`` of its best
    (none when nothing scores above zero)."""
    peak = float(subject.max()) if subject.size else 0.0
    if peak <= 0.0:
        return []
    return [int(r) for r in np.flatnonzero(subject >= share * peak)]


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


def latest_statements(
    snapshot: ScopeSnapshot,
    query: str,
    fact_scores: npt.NDArray[np.floating],
    relevance: npt.NDArray[np.float64],
) -> tuple[list[int], list[int]]:
    """The rows to put first because the query asks about the present, and the rows weighed.

    The query's subject is its ``SUBJECT_ANCHORS`` best anchors by meaning (the facts closest to
    it), read statement by statement: questions and the assistant's words are left out
    (:func:`is_statement`). Among the contexts holding them, the ``PROMOTE_SESSIONS`` latest
    sessions each put first the context of their closest statement (latest first). One context per
    session: it holds the statement itself, so a neighbouring window adds nothing (a third one
    cost LoCoMo evidence and found no newer statement on the change-over-time chats). Weighed:
    every context holding one of those statements (the earlier ones are what the latest replaces).
    ([], []) for other queries and for a snapshot without anchors.
    """
    if not snapshot.facts or relevance.size == 0 or not asks_present(query):
        return [], []
    scores = np.asarray(fact_scores, dtype=np.float64)
    best = closest_statements(snapshot, scores, np.lexsort((np.arange(scores.size), -scores))[:SUBJECT_ANCHORS])
    if not best:
        return [], []
    line = timeline(snapshot)
    by_session: dict[float, list[int]] = {}
    for row in best:
        by_session.setdefault(line.session_time[row], []).append(row)
    latest = sorted(by_session, reverse=True)[:PROMOTE_SESSIONS]
    rows = [sorted(by_session[t], key=lambda r: (-best[r], -float(relevance[r]), r)) for t in latest]
    return [group[0] for group in rows], list(best)


def latest_on_subject(
    snapshot: ScopeSnapshot,
    query: str,
    relevance: npt.NDArray[np.float64],
    subject: npt.NDArray[np.float64] | None = None,
) -> list[int]:
    """The rows to put first because the query asks about the present, in order: the most
    on-subject context of each of the ``PROMOTE_SESSIONS`` latest sessions on the query's subject
    (latest first), then the latest session's next one (``PROMOTE_LATEST`` from it in all); [] for other
    queries. The caller keeps a place for the best-scored context (``put_first`` takes the places
    of the lowest-scored).

    ``subject`` (default: ``relevance``) says per context how strongly it is about what the query
    asks; a context is on the subject at ``PROMOTE_ON_SUBJECT`` of the best subject score or more.
    The default recipe passes the strongest of its normalised signals, so a statement that matches
    the question's meaning but not its words still counts.
    """
    if relevance.size == 0 or not asks_present(query):
        return []
    about = relevance if subject is None else subject
    peak = float(about.max())
    if peak <= 0.0:
        return []
    line = timeline(snapshot)
    by_session: dict[float, list[int]] = {}
    for row in on_subject(about):
        by_session.setdefault(line.session_time[row], []).append(row)
    latest = sorted(by_session, reverse=True)[:PROMOTE_SESSIONS]
    ranked = [sorted(by_session[t], key=lambda r: (-float(about[r]), -float(relevance[r]), r)) for t in latest]
    return [rows[0] for rows in ranked] + ranked[0][1:PROMOTE_LATEST]


def put_first(
    chosen: list[int],
    scores: dict[int, float],
    first: list[int],
    limit: int,
    share: Sequence[float] | None = None,
) -> tuple[list[int], dict[int, float]]:
    """``chosen`` with the rows of ``first`` in it (each taking the place of the lowest-scored other
    rows when the result is full) and scored just above the best, in the order given, so that they
    rank first. Everything else keeps its place and score. ``share[row]`` is the place a row takes
    (default 1 each; see ``query.select``): the result holds at most ``limit`` places."""
    if not first or limit <= 0:
        return chosen, scores

    def place(row: int) -> float:
        return 1.0 if share is None else float(share[row])

    first = first[:limit]
    kept = [r for r in chosen if r not in first]
    room = limit - sum(place(r) for r in first) + 1e-9
    weakest_first = sorted(kept, key=lambda r: (scores.get(r, 0.0), -chosen.index(r)))
    drop: set[int] = set()
    while weakest_first and sum(place(r) for r in kept if r not in drop) > room:
        drop.add(weakest_first.pop(0))
    kept = [r for r in kept if r not in drop]
    out = {r: scores[r] for r in kept if r in scores}
    raised = max([*out.values(), *(scores.get(r, 0.0) for r in first), 0.0])
    for row in reversed(first):
        raised = float(np.nextafter(raised, np.inf))
        out[row] = raised
    return [*first, *kept], out


def compare_dates(
    snapshot: ScopeSnapshot,
    rows: Sequence[int],
    scores: Sequence[float],
    weighed: Collection[int] = (),
) -> dict[int, tuple[bool | None, tuple[int, ...]]]:
    """For each returned row: (latest, rows on the same subject from later sessions).

    The rows on the query's subject are the returned rows in ``weighed`` when the recency rule put
    statements first (the contexts of the statements it weighed: an earlier statement in other
    words, scored low, is still what the latest one replaces, and a later question or passing
    mention scored high is not a statement on the subject); otherwise the rows scoring at least
    ``ON_SUBJECT`` of the best returned score. They are compared by their session's time;
    ``latest`` is None for the others, and for every row when fewer than two sessions are on the
    subject (nothing to compare).
    """
    out: dict[int, tuple[bool | None, tuple[int, ...]]] = {row: (None, ()) for row in rows}
    if not rows:
        return out
    top = max(scores)
    if weighed:
        chosen = set(weighed)
        same = [row for row in rows if row in chosen]
    else:
        same = [row for row, score in zip(rows, scores, strict=True) if top > 0 and score >= ON_SUBJECT * top]
    line = timeline(snapshot)
    if len({line.session_time[r] for r in same}) < 2:
        return out
    for row in same:
        later = tuple(r for r in same if line.session_time[r] > line.session_time[row])
        out[row] = (not later, later)
    return out
