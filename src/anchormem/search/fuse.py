"""Rank fusion: reciprocal rank fusion (Cormack et al. 2009) of ranked candidate lists."""

from __future__ import annotations

from collections.abc import Sequence


def rrf(rankings: Sequence[tuple[Sequence[int], float]], k: float = 60.0) -> dict[int, float]:
    """Fuse ranked lists of ids: ``score(x) = sum(weight / (k + rank))``, rank starting at 1.

    ``rankings`` holds (ids best first, weight) pairs; an id repeated within one list counts once,
    at its best rank.
    """
    fused: dict[int, float] = {}
    for ids, weight in rankings:
        if weight == 0.0:
            continue
        seen: set[int] = set()
        rank = 0
        for item in ids:
            if item in seen:
                continue
            seen.add(item)
            rank += 1
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


def order_by_score(scores: dict[int, float]) -> list[int]:
    """Ids by descending score; ties broken by the smaller id (deterministic)."""
    return sorted(scores, key=lambda i: (-scores[i], i))
