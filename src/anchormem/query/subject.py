"""Which candidate contexts speak of the same subject, read from the memory's own structure.

Two contexts are on the same subject when the anchors that made each of them relevant to the query (its
best anchor: the fact of the context closest to the query) are near each other: their cosine is at least
``SAME_SUBJECT`` (the two anchors say much the same kind of thing: "I live in a flat in Leeds" and "the
boxes are unpacked in the new Glasgow flat"), or the two anchors are linked by an event of the event graph
(the paper's associative links, §4.2). Nothing here reads words of the question: the query only chooses
which anchor speaks for a context, and the comparison is anchor to anchor, so it works in any language the
embedder reads. An anchor that is a question ("…?") speaks for no subject.

Where the threshold sits, measured with MiniLM and offline anchors on the change-over-time chats
(BENCHMARKS.md): the old and the new statement of a change reach 0.12-0.68 (told in other words, often
low), and unrelated short sentences of one chat 0.3-0.65, so no threshold separates them. The threshold
is set high (0.6) because a false link is worse than a missed one: a missed link leaves two contexts
unmarked and unmoved (the reader sees both dates), a false one marks an answer superseded. Swept 0.45,
0.6, 0.75 on four dev chats: misleading marks 2, 1, 0 of 60; current state in the first three 15, 14, 14
of 32.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anchormem.query.snapshot import ScopeSnapshot

SAME_SUBJECT = 0.6  # cosine between two contexts' best anchors that puts them on one subject


@dataclass(frozen=True)
class Subjects:
    """Per candidate row: its best anchor (fact row, or -1 when it has none that states something) and the
    other candidate rows on the same subject."""

    best_fact: dict[int, int]
    neighbours: dict[int, frozenset[int]]

    def same(self, a: int, b: int) -> bool:
        return b in self.neighbours.get(a, frozenset())


def best_facts(snapshot: ScopeSnapshot, rows: Sequence[int], fact_scores: npt.NDArray[np.floating]) -> dict[int, int]:
    """Per row, its fact closest to the query that is not a question (-1 when there is none)."""
    out: dict[int, int] = {}
    for row in rows:
        facts = [f for f in snapshot.context_facts[row] if not snapshot.facts[f].text.rstrip().endswith("?")]
        out[row] = max(facts, key=lambda f: (float(fact_scores[f]), -f)) if facts else -1
    return out


def subjects(
    snapshot: ScopeSnapshot,
    rows: Sequence[int],
    fact_scores: npt.NDArray[np.floating],
    threshold: float = SAME_SUBJECT,
) -> Subjects:
    """The :class:`Subjects` of ``rows`` (see the module docstring)."""
    best = best_facts(snapshot, rows, fact_scores)
    with_anchor = [r for r in rows if best[r] >= 0]
    neighbours: dict[int, set[int]] = {r: set() for r in rows}
    if len(with_anchor) > 1:
        vectors = snapshot.fact_vectors[[best[r] for r in with_anchor]]
        sims = vectors @ vectors.T
        linked = _event_links(snapshot, [best[r] for r in with_anchor])
        for i, a in enumerate(with_anchor):
            for j in range(i + 1, len(with_anchor)):
                b = with_anchor[j]
                if sims[i, j] >= threshold or (best[a], best[b]) in linked:
                    neighbours[a].add(b)
                    neighbours[b].add(a)
    return Subjects(best_fact=best, neighbours={r: frozenset(n) for r, n in neighbours.items()})


_FACT_EVENTS: weakref.WeakKeyDictionary[ScopeSnapshot, dict[int, tuple[int, ...]]] = weakref.WeakKeyDictionary()


def fact_events(snapshot: ScopeSnapshot) -> dict[int, tuple[int, ...]]:
    """Per fact row, the event rows built on it (computed once per snapshot)."""
    cached = _FACT_EVENTS.get(snapshot)
    if cached is None:
        found: dict[int, list[int]] = {}
        for e, members in enumerate(snapshot.event_facts):
            for f in members:
                found.setdefault(f, []).append(e)
        cached = {f: tuple(es) for f, es in found.items()}
        _FACT_EVENTS[snapshot] = cached
    return cached


def _event_links(snapshot: ScopeSnapshot, facts: Sequence[int]) -> set[tuple[int, int]]:
    """Pairs of the given facts that one event ties together (both orders)."""
    if not snapshot.events:
        return set()
    events = fact_events(snapshot)
    by_event: dict[int, list[int]] = {}
    for f in set(facts):
        for e in events.get(f, ()):
            by_event.setdefault(e, []).append(f)
    return {(a, b) for members in by_event.values() for a in members for b in members if a != b}
