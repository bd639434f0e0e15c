"""Which candidate contexts speak of the same subject, read from the memory's own structure.

Two contexts are on the same subject when the anchors that made each of them relevant to the query (its
best anchor: the fact of the context closest to the query) are near each other: the cosine of the two
anchors, each less what all of its speaker's anchors share (:func:`centred`), is at least ``SAME_SUBJECT``
(the two say much the same kind of thing: "I live in a flat in Leeds" and "we moved to the new Glasgow
flat"), or the two anchors are linked by an event of the event graph (the paper's associative links, §4.2).
Nothing here reads words of the question: the query only chooses
which anchor speaks for a context, and the comparison is anchor to anchor, so it works in any language the
embedder reads. An anchor that is a question ("…?") speaks for no subject.

Where the threshold sits, measured with MiniLM and offline anchors (BENCHMARKS.md): on the
change-over-time chats the old and the new statement of a change reach 0.12-0.68 raw (told in other words,
often low), and unrelated short sentences of one chat 0.3-0.65, so no threshold separates them; speaker
centring takes 0.15-0.2 off the unrelated pairs of a named speaker and little off real links. The threshold
is set where false links stop: a false link marks an answer superseded, a missed one leaves two contexts
unmarked, each with its date. Swept (centred) on the development chats, misleading marks / current state in
the first three: 0.25: 6/79, 6/20; 0.35: 3/79, 7/20; 0.45: 1/79, 6/20 (user/assistant dev chats), and
3/60, 15/32; 2/60, 13/32; 1/60, 14/32 (four change-over-time chats).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot

SAME_SUBJECT = 0.45  # centred cosine between two contexts' best anchors that puts them on one subject


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
        vectors = centred(snapshot, [best[r] for r in with_anchor])
        close = np.triu(vectors @ vectors.T >= threshold, k=1)  # pairs i < j, compared at once
        pairs = [(with_anchor[i], with_anchor[j]) for i, j in zip(*np.nonzero(close), strict=True)]
        row_of = {best[r]: r for r in with_anchor}  # a fact belongs to one context
        linked = _event_links(snapshot, [best[r] for r in with_anchor])
        pairs += [(row_of[a], row_of[b]) for a, b in linked]  # both orders: neighbours are symmetric
        for a, b in pairs:
            neighbours[a].add(b)
            neighbours[b].add(a)
    return Subjects(best_fact=best, neighbours={r: frozenset(n) for r, n in neighbours.items()})


def centred(snapshot: ScopeSnapshot, rows: Sequence[int]) -> npt.NDArray[np.float32]:
    """The fact vectors at ``rows``, each verbatim anchor less the mean of its speaker's anchors, normalised
    again (facts that name no speaker, e.g. an LLM's, as they are). What all of one speaker's anchors share
    ("Maya: …", "user: …") says who is speaking, not what about: comparing what remains keeps short anchors
    of one speaker from looking alike, and named speakers from linking more than ``user``. The speakers' sums
    are kept on the snapshot (:attr:`ScopeSnapshot.speaker_sums`), so this costs the rows asked for."""
    out = np.array(snapshot.fact_vectors[list(rows)], dtype=np.float32)
    sums = snapshot.speaker_sums
    speakers = snapshot.fact_speakers
    for i, row in enumerate(rows):
        who = speakers[row]
        held = sums.get(who) if who is not None else None
        if held is not None and held[1] > 1:
            out[i] -= (held[0] / held[1]).astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.where(norms > 1e-9, out / np.maximum(norms, 1e-9), 0.0).astype(np.float32)


def _event_links(snapshot: ScopeSnapshot, facts: Sequence[int]) -> set[tuple[int, int]]:
    """Pairs of the given facts that one event ties together (both orders)."""
    if not snapshot.events:
        return set()
    events = snapshot.fact_event_ids
    held = snapshot.event_row  # fact_event_ids may name events a grown snapshot no longer holds
    by_event: dict[str, list[int]] = {}
    for f in set(facts):
        for e in events.get(snapshot.facts[f].id, ()):
            if e in held:
                by_event.setdefault(e, []).append(f)
    return {(a, b) for members in by_event.values() for a in members for b in members if a != b}
