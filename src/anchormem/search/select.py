"""Choosing the contexts to hand over: best first, turn coverage aware, optionally diverse (MMR).

``limit`` counts full windows: a context takes ``snapshot.context_share`` of a place (1 for the
paper's windows; a chat window cut by length takes the share of a full window its text fills), so
a result of short chat windows holds more of them and the reader gets about the same text as from
``limit`` full windows. ``max_chars`` (None: no cap) bounds the context text of a result: a context that
would pass it is skipped (a shorter one may still fit), except the first, which is always taken.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from anchormem.index.snapshot import ScopeSnapshot


def select_ranked(
    snapshot: ScopeSnapshot,
    ranked: list[int],
    limit: int,
    skip_covered: float = 1.0,
    absorb: bool = True,
    max_chars: int | None = None,
) -> list[int]:
    """Take contexts in the given order until ``limit``, skipping one whose share of already covered
    turns reaches ``skip_covered`` (windows overlap by a turn; a session's one-turn tail repeats one),
    and (``absorb``) dropping a chosen context when a later one holds all its turns."""
    chosen: list[int] = []
    covered: set[str] = set()
    for row in ranked:
        if not fits(snapshot, chosen, row, limit):
            break
        turns = snapshot.context_turns[row]
        if turns and len(turns & covered) / len(turns) >= skip_covered:
            continue
        if not within(snapshot, chosen, row, max_chars):
            continue
        chosen = _absorb(snapshot, chosen, row) if absorb else [*chosen, row]
        covered |= turns
    return chosen


def places(snapshot: ScopeSnapshot, rows: list[int]) -> float:
    """The places ``rows`` take in a result (see the module docstring)."""
    share = snapshot.context_share
    return float(sum(share[r] for r in rows))


def fits(snapshot: ScopeSnapshot, chosen: list[int], row: int, limit: int) -> bool:
    """Whether ``row`` still has a place beside ``chosen`` within ``limit`` full windows."""
    return places(snapshot, chosen) + snapshot.context_share[row] <= limit + 1e-9


def within(snapshot: ScopeSnapshot, chosen: list[int], row: int, max_chars: int | None) -> bool:
    """Whether ``row``'s text still fits beside ``chosen`` within ``max_chars`` (the first always fits)."""
    if max_chars is None or not chosen:
        return True
    texts = snapshot.contexts
    return sum(len(texts[r].text) for r in chosen) + len(texts[row].text) <= max_chars


def _absorb(snapshot: ScopeSnapshot, chosen: list[int], row: int) -> list[int]:
    """``chosen`` plus ``row``, without chosen contexts whose turns ``row`` holds as well (a one-turn
    tail picked before the window that contains it)."""
    turns = snapshot.context_turns[row]
    return [c for c in chosen if not snapshot.context_turns[c] <= turns] + [row]


class SupportsRows(Protocol):
    """Vectors by row: ``representation[rows]`` gives one row per asked row (an array, or a lazy view)."""

    def __getitem__(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]: ...


class BestAnchors:
    """Row i: the vector of context i's fact closest to the query (zeros without facts), computed for the rows
    asked for (the selection asks for its candidate pool only, not every context). ``replies`` maps a message
    that took its relevance from a passage of the reply to it (``scoring.exchange_lift``) to that passage: the
    message stands for the passage's evidence, so it takes the passage's anchor and the passage counts as a
    repeat of it."""

    def __init__(
        self, snapshot: ScopeSnapshot, fact_scores: npt.NDArray[np.floating], replies: dict[int, int] | None = None
    ) -> None:
        self._snapshot = snapshot
        self._scores = np.asarray(fact_scores, dtype=np.float64)
        self._replies = replies or {}

    def __getitem__(self, rows: npt.ArrayLike) -> npt.NDArray[np.float32]:
        snap, scores = self._snapshot, self._scores
        wanted = [int(r) for r in np.asarray(rows, dtype=np.int64).ravel()]
        out = np.zeros((len(wanted), snap.fact_vectors.shape[1]), dtype=np.float32)
        best: list[int] = []
        at: list[int] = []
        for i, row in enumerate(wanted):
            facts = snap.context_facts[self._replies.get(row, row)]
            if facts:  # the first of equally close facts, as np.maximum.reduceat over fact order gives
                best.append(max(facts, key=lambda f: (float(scores[f]), -f)))
                at.append(i)
        if best:
            out[at] = snap.fact_vectors[best]
        return out


def select_diverse(
    snapshot: ScopeSnapshot,
    relevance: npt.NDArray[np.float64],
    representation: SupportsRows,
    limit: int,
    lam: float,
    pool: int,
    max_chars: int | None = None,
    steps: dict[int, tuple[int, float | None]] | None = None,
) -> list[int]:
    """Maximal marginal relevance (Carbonell & Goldstein 1998) over the ``pool`` most relevant contexts.

    ``representation`` row i describes context i (its best-matching anchor's vector), so a context
    saying again what a chosen one says loses ``(1 - lam) * similarity``. Contexts whose turns are
    all covered are skipped; a chosen context whose turns a later choice holds is dropped. Ties go to
    the more relevant, then the earlier context. Selection stops at the first pick that does not
    fit within ``limit`` places; one whose text passes ``max_chars`` is skipped. ``steps`` (if given)
    receives, per chosen row, its selection step and the redundancy it was picked with.
    """
    n = relevance.shape[0]
    if n == 0 or limit <= 0:
        return []
    size = min(pool, n)
    cand = np.argpartition(-relevance, size - 1)[:size] if size < n else np.arange(n)
    cand = cand[np.lexsort((cand, -relevance[cand]))]
    cand_list = [int(c) for c in cand]
    rel = relevance[cand]
    rep = representation[cand]
    redundancy = np.full(len(cand_list), -np.inf)
    alive = np.ones(len(cand_list), dtype=bool)
    chosen: list[int] = []
    covered: set[str] = set()
    while alive.any():
        value = lam * rel - (1.0 - lam) * np.where(np.isfinite(redundancy), redundancy, 0.0)
        value = np.where(alive, value, -np.inf)
        j = int(np.argmax(value))
        row = cand_list[j]
        if not fits(snapshot, chosen, row, limit):
            break
        alive[j] = False
        turns = snapshot.context_turns[row]
        if turns and turns <= covered:
            continue
        if not within(snapshot, chosen, row, max_chars):
            continue
        if steps is not None:
            steps[row] = (len(steps) + 1, float(redundancy[j]) if np.isfinite(redundancy[j]) else None)
        chosen = _absorb(snapshot, chosen, row)
        covered |= turns
        redundancy = np.maximum(redundancy, rep @ rep[j])
    return chosen
