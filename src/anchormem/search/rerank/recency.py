"""Time as a bounded signal: which of the statements on one subject is the latest.

A conversation that lasts months says things that later stop being true ("I live in Leeds" in March, "the
boxes are unpacked in the new Glasgow flat" in October). Without an LLM, the memory cannot tell whether a
later statement replaces an earlier one; it can tell which statements are on the same subject (their
anchors are near each other or linked by an event: :mod:`anchormem.search.rerank.subject`) and when each was said.

- **The recency stage** (``recency``, any language): among the candidates on one subject, the one from the latest
  session gains ``rerank_bound`` (default 0.1), provided an earlier session on that subject is among the candidates
  too and no later one is, however weak (so no older statement is lifted over a newer one). It can pass the earlier
  statements on its subject and contexts within the bound of it, never a context whose evidence is stronger by more
  than the bound; a context without another on its subject is never moved. (The English ``tense`` stage,
  :mod:`anchormem.search.rerank.tense`, adds as much again for a question about the present and takes it back for
  one about the past.)
- **Marks** (:func:`mark_dates`, not on the offline path: see there): a returned context with a returned context on
  its subject from another session is marked ``latest=True`` when none of them is later, else ``latest=False`` with
  the later ones in ``newer``; a context with none on its subject is not compared (``latest=None``), nor is one that
  would be marked latest while a later candidate on its subject was left out of the result. A context is never
  marked superseded by a session about something else.

Time is the session's date as stored (:func:`anchormem.text.dates.parse_when`); where no date can be read,
conversation order stands in for it.

On the LLM path (candidates with LLM-extracted facts) both the stage and the marks come from the supersession
links that event integration recorded instead (:mod:`anchormem.search.rerank.supersession`): the latest statement is
the one whose fact supersedes another candidate's, and a context is ``earlier`` only when a returned
context's fact supersedes its own. A link sees only the statements integrated together: a context whose fact
supersedes another is neither raised nor marked ``latest`` while a candidate on its subject from a later session
stands beside it (on blind-22, a permit's corrected end date was marked ``latest`` over the new permit of a later
session, which no link joined); it may still mark the statement it replaced ``earlier``.
"""

from __future__ import annotations

import weakref
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.search.rerank.own_words import statements
from anchormem.search.rerank.stage import FLOOR, Candidates
from anchormem.search.rerank.subject import Subjects
from anchormem.search.rerank.supersession import links, on_llm_path


@dataclass(frozen=True)
class Timeline:
    """Per context row: the time key of its session (comparable across rows)."""

    session_time: npt.NDArray[np.float64]


_TIMELINES: weakref.WeakKeyDictionary[ScopeSnapshot, Timeline] = weakref.WeakKeyDictionary()


def timeline(snapshot: ScopeSnapshot) -> Timeline:
    """The snapshot's :class:`Timeline` (computed once per snapshot, in a few array operations).

    A session's time is the earliest date read from its contexts. If any session has no readable
    date, every session's time is its first row in conversation order instead (dates and positions
    are not comparable). A session is its label within its scope: when a search covers sub-scopes,
    an agent's session "3" is not the user's session "3".
    """
    cached = _TIMELINES.get(snapshot)
    if cached is not None:
        return cached
    codes = snapshot.session_codes
    n = int(codes.max()) + 1 if codes.size else 0
    earliest = np.full(n, np.inf)
    np.fmin.at(earliest, codes, snapshot.context_times)  # fmin: a context without a date adds nothing
    present = np.zeros(n, dtype=bool)
    present[codes] = True
    if np.isfinite(earliest[present]).all():
        times = earliest
    else:
        first = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, codes, np.arange(codes.size, dtype=np.int64))
        times = first.astype(np.float64)
    made = Timeline(session_time=times[codes])
    _TIMELINES[snapshot] = made
    return made


def compared(
    snapshot: ScopeSnapshot, subjects: Subjects, rows: Collection[int]
) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per row of ``rows``: (rows on its subject from earlier sessions, rows on it from later sessions),
    among ``rows``."""
    line = timeline(snapshot).session_time
    wanted = set(rows)
    out: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for row in rows:
        same = [r for r in subjects.neighbours.get(row, ()) if r in wanted]
        older = tuple(sorted(r for r in same if line[r] < line[row]))
        newer = tuple(sorted(r for r in same if line[r] > line[row]))
        out[row] = (older, newer)
    return out


def latest_of_subject(candidates: Candidates) -> list[int]:
    """The candidates that are the latest statement on a subject that earlier sessions also spoke of
    (candidates below ``FLOOR`` of the best relevance are not raised, and need an earlier strong one to
    be compared with). A later candidate on the same subject, however weak, means a row is not the
    latest: raising "moved to Denver" because the later "moved to Boulder" scored low would lift an
    older statement above a newer one."""
    relevance = candidates.relevance
    peak = max((float(relevance[r]) for r in candidates.rows), default=0.0)
    strong = [r for r in candidates.rows if float(relevance[r]) >= FLOOR * peak and peak > 0]
    strong = statements(candidates, strong)
    every = compared(candidates.snapshot, candidates.subjects, statements(candidates, candidates.rows))
    if on_llm_path(candidates.snapshot, strong):
        linked = links(candidates.snapshot, strong, candidates.subjects.best_fact).latest(strong)
        return [row for row in linked if not every.get(row, ((), ()))[1]]  # nothing later the links missed
    dated = compared(candidates.snapshot, candidates.subjects, strong)
    return [row for row in strong if dated[row][0] and not dated[row][1] and not every.get(row, ((), ()))[1]]


class Recency:
    """The ``recency`` stage (module docstring)."""

    name: ClassVar[str] = "recency"
    languages: ClassVar[tuple[str, ...]] = ("*",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        rows = latest_of_subject(candidates)
        if rows:
            candidates.notes[self.name] = "the latest session on a subject that earlier sessions also spoke of"
        return {row: candidates.bound for row in rows}


def offline_only(snapshot: ScopeSnapshot, row: int) -> bool:
    """Whether context ``row``'s anchors are all the offline extractor's (sentences, not an LLM's facts)."""
    facts = snapshot.context_facts[row]
    return bool(facts) and all(snapshot.facts[f].source == "offline" for f in facts)


def mark_dates(candidates: Candidates, rows: Sequence[int]) -> dict[int, tuple[bool | None, tuple[int, ...]]]:
    """For each returned row: (latest, returned rows on its subject from later sessions); latest is None
    when no returned row on its subject comes from another session. Only the rows that can state the answer
    to the query are compared (:func:`anchormem.search.rerank.own_words.statements`); the others stay None. On
    the offline path so do contexts whose anchors are all offline ones (:func:`offline_only`): measured on the
    user/assistant chats, offline marks were right 50–74% of the time (bench/assistant,
    docs/research/benchmarks-log.md), far from the 0.95 a reader can trust, so they are left out and the block
    shows dates and order."""
    compared_rows = statements(candidates, rows)
    out: dict[int, tuple[bool | None, tuple[int, ...]]] = {row: (None, ()) for row in rows}
    snapshot = candidates.snapshot
    pool = compared(snapshot, candidates.subjects, statements(candidates, [*candidates.rows, *rows]))
    if on_llm_path(snapshot, compared_rows):
        found = links(snapshot, compared_rows, candidates.subjects.best_fact)
        for row in compared_rows:
            newer = tuple(sorted(found.newer.get(row, frozenset())))
            if not newer and pool.get(row, ((), ()))[1]:  # a later session on its subject the links do not cover
                continue
            if newer or found.older.get(row):
                out[row] = (not newer, newer)
        return out
    compared_rows = [row for row in compared_rows if not offline_only(snapshot, row)]
    dated = compared(snapshot, candidates.subjects, compared_rows)
    for row in compared_rows:
        older, newer = dated[row]
        if not newer and pool.get(row, ((), ()))[1]:  # a later candidate on its subject was not returned
            continue
        out[row] = (None, ()) if not older and not newer else (not newer, newer)
    return out
