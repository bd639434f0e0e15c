"""Building the :class:`~anchormem.model.Trace` of one retrieval from what :mod:`anchormem.search.retrieve`
computed on the way (the dataclasses live in :mod:`anchormem.model`; the inspector and
:mod:`anchormem.search.explain` only format them)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from anchormem.config import RetrievalSettings
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import ContextTrace, SearchResult, SignalTrace, Trace
from anchormem.search.recipes import Recipe, recipe_named

if TYPE_CHECKING:
    from anchormem.search.hybrid import Hybrid


def _head(recipe: Recipe, settings: RetrievalSettings, considered: int, used_chars: int, scale: float = 1.0) -> Trace:
    """What a trace says of the whole run: recipe, stages, bound, budget (no contexts yet)."""
    return Trace(
        variant=settings.variant,
        mode=recipe.mode,
        stages=tuple(settings.rerankers) if recipe.rerank and recipe.mode == "hybrid" else (),
        bound=settings.rerank_bound,
        mmr_lambda=recipe.mmr_lambda,
        shared_turns=recipe.shared_turns,
        considered=considered,
        max_chars=settings.max_chars,
        used_chars=used_chars,
        scale=scale,
    )


def empty_result(query: str, settings: RetrievalSettings, trace: bool = False) -> SearchResult:
    """The result of a search that finds no memory to look through (with an empty trace if asked for)."""
    result = SearchResult(query=query, contexts=(), events=())
    if not trace:
        return result
    return replace(result, trace=_head(recipe_named(settings.variant), settings, considered=0, used_chars=0))


def trace_of(
    snapshot: ScopeSnapshot,
    result: SearchResult,
    recipe: Recipe,
    settings: RetrievalSettings,
    run: Hybrid | None,
) -> Trace:
    """The :class:`Trace` of one run: for the hybrid recipes, what retrieval computed on the way."""
    rows = [snapshot.context_row[h.context.id] for h in result.contexts]
    base = _head(
        recipe,
        settings,
        considered=len(run.candidates.rows) if run is not None else len(rows),
        used_chars=sum(len(h.context.text) for h in result.contexts),
        scale=run.scale if run is not None else 1.0,
    )
    if run is None:
        traced = tuple(
            ContextTrace(
                context_id=h.context.id, relevance=h.score, relevance_rank=h.rank, score=h.score, picked_at=h.rank
            )
            for h in result.contexts
        )
        return replace(base, contexts=traced)
    values = run.relevance.values
    order = np.lexsort((np.arange(values.size), -values))
    rank = np.empty(values.size, dtype=np.int64)
    rank[order] = np.arange(1, values.size + 1)
    subjects_of = run.candidates.subjects
    returned = set(rows)
    traced_rows = []
    for hit, row in zip(result.contexts, rows, strict=True):
        best = subjects_of.best_fact.get(row, -1)
        step, redundancy = run.steps.get(row, (None, None))
        traced_rows.append(
            ContextTrace(
                context_id=hit.context.id,
                relevance=float(values[row]),
                relevance_rank=int(rank[row]),
                score=hit.score,
                signals=tuple(
                    SignalTrace(name, w, _finite(raw[row]), float(scaled[row]), float(spread[row]))
                    for name, w, raw, scaled, spread in run.relevance.signals
                ),
                adjustments=hit.adjustments,
                picked_at=step,
                redundancy=redundancy,
                same_subject=tuple(
                    snapshot.contexts[r].id for r in sorted(subjects_of.neighbours.get(row, ())) if r in returned
                ),
                best_anchor=snapshot.facts[best].id if best >= 0 else None,
                reply=snapshot.contexts[run.relevance.replies[row]].id if row in run.relevance.replies else None,
            )
        )
    return replace(base, contexts=tuple(traced_rows), notes=tuple(run.candidates.notes.items()))


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
