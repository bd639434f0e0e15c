"""Why each returned context was returned: its retrieval signals, recomputed after the fact.

:func:`explain` takes a finished :class:`~anchormem.model.SearchResult` and recomputes, for the
contexts it holds, the signals the recipe scored them by, with the same helpers retrieval uses
(:mod:`anchormem.query.scoring`, :mod:`anchormem.query.select`). The retrieval path itself is not
touched, so an explanation never changes what a search returns.

For the default (hybrid) recipes a context's relevance is the weighted mean of its normalised
signals; the explanation splits it into additive contributions that sum to the relevance:

- ``anchor``: the cosine of the context's best anchor (fact), normalised;
- ``lexical``: BM25 of the context's text, normalised;
- ``events``: the events' votes (only for recipes that let events vote);
- ``shared_turns``: what spreading over the turns shared with overlapping windows added.

``selection`` says how the context was chosen: its rank by relevance among all contexts, the step at
which maximal marginal relevance took it, and the redundancy (best similarity of its anchor to those
already chosen) it was penalised by. Rank-based baselines report the raw anchor cosine and BM25
beside their rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from anchormem.config import RetrievalSettings
from anchormem.model import SearchResult
from anchormem.query import scoring
from anchormem.query.fuse import order_by_score
from anchormem.query.retrieve import Recipe, _best_anchor_vectors, recipe_named, top_rows
from anchormem.query.select import select_diverse, select_ranked
from anchormem.query.snapshot import ScopeSnapshot

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Signal:
    """One signal of one context: its raw value, normalised value, and after turn spreading."""

    name: str
    weight: float
    raw: float | None  # None: the context has no evidence of this kind (e.g. no facts)
    normalised: float
    spread: float


@dataclass
class Explanation:
    """The signals and selection of one returned context."""

    context_id: str
    score: float  # the score the search returned
    relevance: float  # recomputed (equals ``score`` for hybrid recipes)
    contributions: dict[str, float]  # additive parts of ``relevance`` (``recency``: the raise of the recency rule)
    signals: list[Signal] = field(default_factory=list)
    relevance_rank: int | None = None  # 1 = most relevant context of the memory
    picked_at: int | None = None  # selection step (1 = first picked)
    redundancy: float | None = None  # similarity to the contexts picked before it (MMR penalty input)
    best_anchor_cosine: float | None = None
    lexical_bm25: float = 0.0
    promoted: bool = False  # put first by a recency rule (the present, or before a change), not by its relevance


@dataclass
class SearchExplanation:
    variant: str
    mode: str
    mmr_lambda: float
    shared_turns: bool
    contexts: list[Explanation]


def explain(
    snapshot: ScopeSnapshot,
    result: SearchResult,
    query_vector: npt.NDArray[np.float32],
    settings: RetrievalSettings,
) -> SearchExplanation:
    """The signal breakdown of every context in ``result`` (found with ``settings.variant``)."""
    recipe = recipe_named(settings.variant)
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    n = len(snapshot.contexts)
    fact_scores = snapshot.fact_vectors @ q if snapshot.facts else np.zeros(0, np.float32)
    dense_raw = (
        scoring.context_soft_max(snapshot, fact_scores, recipe.dense_temperature)
        if snapshot.facts
        else np.full(n, -np.inf)
    )
    lexical_raw = snapshot.context_bm25.scores(result.query) if n else np.zeros(0)
    rows = [snapshot.context_row[hit.context.id] for hit in result.contexts if hit.context.id in snapshot.context_row]
    returned = {hit.context.id: hit.score for hit in result.contexts}
    out = SearchExplanation(
        variant=settings.variant,
        mode=recipe.mode,
        mmr_lambda=recipe.mmr_lambda,
        shared_turns=recipe.shared_turns,
        contexts=[],
    )
    if recipe.mode == "hybrid":
        out.contexts = _hybrid(snapshot, result.query, q, rows, returned, recipe, settings, fact_scores, lexical_raw)
    else:
        for row in rows:
            cid = snapshot.contexts[row].id
            out.contexts.append(
                Explanation(
                    context_id=cid,
                    score=returned[cid],
                    relevance=returned[cid],
                    contributions={"rank": returned[cid]},
                    relevance_rank=round(1.0 / returned[cid]) if returned[cid] > 0 else None,  # score = 1/rank
                    best_anchor_cosine=_finite(dense_raw[row]),
                    lexical_bm25=float(lexical_raw[row]),
                )
            )
    return out


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _hybrid(
    snapshot: ScopeSnapshot,
    query: str,
    q: npt.NDArray[np.float32],
    rows: list[int],
    returned: dict[str, float],
    recipe: Recipe,
    settings: RetrievalSettings,
    fact_scores: npt.NDArray[np.floating],
    lexical_raw: Floats,
) -> list[Explanation]:
    """Recompute the fused relevance term by term, as ``retrieve._hybrid`` builds it."""
    parts: list[tuple[str, float, Floats, Floats, Floats]] = []  # name, weight, raw, normalised, spread

    def add(name: str, weight: float, raw: Floats) -> None:
        scaled = scoring.normalise(raw)
        spread = scoring.shared_turn_mean(snapshot, scaled) if recipe.shared_turns else scaled
        parts.append((name, weight, raw, scaled, spread))

    dense_raw = (
        scoring.context_soft_max(snapshot, fact_scores, recipe.dense_temperature)
        if snapshot.facts
        else np.full(len(snapshot.contexts), -np.inf)
    )
    if recipe.w_dense and snapshot.facts:
        add("anchor", recipe.w_dense, dense_raw)
    if recipe.w_lexical:
        if recipe.expand_facts and snapshot.facts:  # query expansion changes the lexical signal
            index = snapshot.context_bm25
            terms = index.query_terms(query)
            best = [f for f, _ in top_rows(fact_scores, recipe.expand_facts)]
            extra = [t for t in scoring.expansion_terms(snapshot, query, best, recipe.expand_terms) if t not in terms]
            lexical_raw = lexical_raw + recipe.expand_weight * index.scores_for_terms(extra)
        add("lexical", recipe.w_lexical, lexical_raw)
    if recipe.w_fact_lexical and snapshot.facts:
        add("fact_lexical", recipe.w_fact_lexical, scoring.context_max(snapshot, snapshot.fact_bm25.scores(query)))
    if recipe.w_events and snapshot.events and snapshot.event_vectors.size:
        events = top_rows(snapshot.event_vectors @ q, settings.k_events)
        if events:
            add("events", recipe.w_events, scoring.event_votes(snapshot, events, fact_scores))
    total = max(sum(w for _, w, *_ in parts), 1e-12)
    relevance = np.zeros(len(snapshot.contexts))
    for _, w, _, _, spread in parts:
        relevance += w * spread
    relevance /= total
    order = np.lexsort((np.arange(relevance.size), -relevance))
    rank = np.empty(relevance.size, dtype=np.int64)
    rank[order] = np.arange(1, relevance.size + 1)
    picked, redundancy = _selection_steps(snapshot, relevance, fact_scores, recipe, settings.max_contexts)

    out = []
    for row in rows:
        cid = snapshot.contexts[row].id
        contributions = {name: w * float(scaled[row]) / total for name, w, _, scaled, _ in parts}
        contributions["shared_turns"] = sum(w * float(spread[row] - scaled[row]) for _, w, _, scaled, spread in parts)
        contributions["shared_turns"] /= total
        fused = float(relevance[row])
        promoted = recipe.recency and returned[cid] - fused > 1e-9  # the recency rule raised it above the rest
        if promoted:
            contributions["recency"] = returned[cid] - fused
        out.append(
            Explanation(
                context_id=cid,
                score=returned[cid],
                relevance=returned[cid] if promoted else fused,
                promoted=promoted,
                contributions=contributions,
                signals=[
                    Signal(name, w, _finite(raw[row]), float(scaled[row]), float(spread[row]))
                    for name, w, raw, scaled, spread in parts
                ],
                relevance_rank=int(rank[row]),
                picked_at=picked.get(row),
                redundancy=redundancy.get(row),
                best_anchor_cosine=_finite(dense_raw[row]),
                lexical_bm25=float(lexical_raw[row]),
            )
        )
    return out


def _selection_steps(
    snapshot: ScopeSnapshot,
    relevance: Floats,
    fact_scores: npt.NDArray[np.floating],
    recipe: Recipe,
    limit: int,
) -> tuple[dict[int, int], dict[int, float]]:
    """Step at which each context entered the selection, and its redundancy with the ones before.

    Runs the selection itself with growing limits: a context's step is the first limit whose choice
    holds it (a context later absorbed by a wider window keeps the step it entered at)."""
    vectors = _best_anchor_vectors(snapshot, fact_scores) if snapshot.facts else None
    pool = max(recipe.pool, 4 * limit)
    ranked = order_by_score(dict(enumerate(relevance.tolist())))

    def choose(step: int) -> list[int]:
        if recipe.mmr_lambda >= 1.0 or vectors is None:
            return select_ranked(snapshot, ranked, step)
        return select_diverse(snapshot, relevance, vectors, step, recipe.mmr_lambda, pool)

    picked: dict[int, int] = {}
    before: list[int] = []
    redundancy: dict[int, float] = {}
    for step in range(1, limit + 1):
        chosen = choose(step)
        for row in chosen:
            if row not in picked:
                picked[row] = step
                if vectors is not None:
                    redundancy[row] = max((float(vectors[row] @ vectors[b]) for b in before), default=0.0)
                before.append(row)
        if len(chosen) < step:
            break  # the pool is exhausted
    return picked, redundancy
