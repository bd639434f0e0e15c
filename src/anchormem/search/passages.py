"""The passage of a long message that holds what the question asks about, in place of another passage of it.

A message longer than a chat window (a pasted letter, a CV, a 400-word reply) is stored as several passages, each
its own context. The fused relevance ranks them by the message's anchors and the passage's words alike, so the
passage that ranks first is often the one that states the message's request ("Could you translate it into plain
English?") while the question's words ("allergic", "dog") sit in another passage of the same message. For each
returned passage, :func:`prefer_passages` takes instead the sibling passage of its message that holds more of the
question's terms (by their BM25 weight: a rare word counts more than a common one), when the sibling was not
returned already. The result keeps its size: one passage of a message for another.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot

T = TypeVar("T")

__all__ = ["prefer_passages", "siblings"]


def siblings(snapshot: ScopeSnapshot, row: int) -> list[int]:
    """The other contexts holding a passage of a message that context ``row`` holds a passage of (the passages of
    one message are neighbouring contexts of its session), nearest first; none when ``row`` holds whole
    messages only."""
    contexts = snapshot.contexts
    own = {snapshot.turn_key(row, tid) for tid, start, _ in contexts[row].pieces() if start is not None}
    if not own:
        return []
    found: list[int] = []
    for step in (-1, 1):
        other = row + step
        while 0 <= other < len(contexts) and contexts[other].session == contexts[row].session:
            keys = {snapshot.turn_key(other, tid) for tid, start, _ in contexts[other].pieces() if start is not None}
            if not keys & own:
                break
            found.append(other)
            other += step
    return sorted(found, key=lambda r: abs(r - row))


def prefer_passages(
    snapshot: ScopeSnapshot,
    query: str,
    chosen: list[int],
    limit: float | None = None,
    max_chars: int | None = None,
    steps: dict[int, T] | None = None,
) -> list[int]:
    """``chosen`` with each passage replaced by the sibling passage (:func:`siblings`) that holds the question's
    terms with more weight (the sum of the BM25 idf of the distinct terms it holds), where one does strictly, is
    not in the result yet and keeps the result within ``limit`` places and ``max_chars`` characters of context
    text (as the selection does, ``search.select``; None: no bound); the order stays. ``steps`` (the selection's
    record per row, if given) moves with each swap to the passage that took its place."""
    index = snapshot.context_bm25
    terms = index.query_terms(query)
    if not terms or not chosen or index.n_docs != len(snapshot.contexts):
        return chosen
    idf = index.idf
    weight: npt.NDArray[np.float64] = np.zeros(index.n_docs, dtype=np.float64)
    for term in terms:
        weight += float(idf[term]) * (index.scores_for_terms([term]) > 0)
    share = snapshot.context_share
    size = [len(c.text) for c in snapshot.contexts]
    places = sum(share[r] for r in chosen)
    chars = sum(size[r] for r in chosen)
    taken = set(chosen)
    out: list[int] = []
    for row in chosen:
        best = row
        for other in siblings(snapshot, row):
            if other in taken or weight[other] <= weight[best]:
                continue
            if limit is not None and places - share[row] + share[other] > limit + 1e-9:
                continue
            if max_chars is not None and len(chosen) > 1 and chars - size[row] + size[other] > max_chars:
                continue
            best = other
        if best != row:
            if steps is not None and row in steps:
                steps[best] = steps.pop(row)
            taken.discard(row)
            taken.add(best)
            places += share[best] - share[row]
            chars += size[best] - size[row]
        out.append(best)
    return out
