"""Query pipeline: anchors (facts, events) -> contexts, with provenance (paper §4.3 and our recipe).

A *recipe* names how candidate contexts are scored and chosen (``RetrievalSettings.variant``). The public
recipes, the ones a user chooses between (experiments register more from ``bench/`` through
:func:`register_recipe`):

- ``anchormem`` (default): each context gets two signals, a soft maximum of its anchors' (facts') cosines (the best
  one, raised a little when several come close: a window in which several messages match gains) and BM25 (stemmed) of
  its text, DATE line included; both are normalised, spread over the turns overlapping windows share (a turn scores
  its best window, a window the mean of its turns), and averaged; a message parted by length from the long reply to it
  takes the reply's best passage's value when that is higher, and of two windows whose best anchor is in the turn they
  share, the one where its reply follows ranks first (``scoring.exchanges``): that is the context's **relevance**, in
  [0, 1]. The rerank stages (:mod:`anchormem.search.rerank.stage`; ``RetrievalSettings.rerankers``) may then adjust
  the scores of the most relevant candidates, each within ``rerank_bound``: time counts only between contexts on the
  same subject (:mod:`anchormem.search.rerank.recency`). Contexts are chosen by maximal marginal relevance over their
  best anchors' vectors (a context that repeats what a chosen one says gives way to one that adds something), skipping
  contexts whose turns are all covered, within ``max_contexts`` places and ``max_chars`` characters of context text.
  The top events are returned beside, except those whose source contexts are all returned already, and an extractive
  event says only what the returned contexts do not (``query.events``).
- ``paper``: exactly §4.3 — the top ``k_facts`` facts by cosine, mapped to their contexts
  (deduplicated, in fact order), plus the top ``k_events`` events.
- ``no-events``: ``anchormem`` without events in the result (the paper's "w/o events" ablation).
- ``bm25``: BM25 (stemmed) top contexts; a lexical baseline without anchors or events.
- ``chunks``: NaiveRAG — the contexts themselves embedded, top by cosine (baseline; embeds every
  context of the scope on first use).

Returned contexts are *best first*: in the order the selection took them (the default recipe's maximal
marginal relevance: a context that repeats what one taken before says comes after one that adds something,
so a block of a small budget, which takes them in this order, spends it on what is new; the other recipes
take them by score, highest first),
each with its ``rank`` (1 = best), its ``relevance`` and the stages' ``adjustments``;
``SearchResult.in_reading_order()`` gives them in conversation order. The rank-based baselines score
``1 / rank``. Events come best first. ``retrieve(..., trace=True)`` attaches what each signal and stage
gave (:class:`anchormem.model.Trace`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from anchormem.config import RetrievalSettings
from anchormem.errors import ConfigError, InputError
from anchormem.index.ann import fact_scores as ann_fact_scores
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import ContextHit, Event, EventHit, FactHit, SearchResult
from anchormem.search.events import events_that_add, what_they_add
from anchormem.search.fuse import order_by_score, rrf
from anchormem.search.hybrid import Hybrid, Relevance
from anchormem.search.question import query_vectors, voice_of
from anchormem.search.recipes import RECIPES, Recipe, candidate_count, recipe_named, register_recipe
from anchormem.search.rerank.recency import mark_dates
from anchormem.search.rerank.stage import Candidates, apply_stages, final_scores
from anchormem.search.rerank.subject import Subjects, subjects
from anchormem.search.scoring import (
    anchor_order,
    context_max,
    context_soft_max,
    event_votes,
    exchanges,
    expansion_terms,
    normalise,
    other_language_weight,
    shared_turn_mean,
)
from anchormem.search.select import BestAnchors, select_diverse, select_ranked
from anchormem.search.trace import empty_result, trace_of

__all__ = [
    "RECIPES",
    "Recipe",
    "empty_result",
    "query_vectors",
    "recipe_named",
    "register_recipe",
    "retrieve",
    "retrieve_with",
    "top_rows",
    "voice_of",
]

Floats = npt.NDArray[np.float64]
Scores = npt.NDArray[np.floating]
Events = list[tuple[int, float]]  # (event row, cosine), best first


def retrieve(
    snapshot: ScopeSnapshot,
    query: str,
    query_vector: npt.NDArray[np.float32],
    settings: RetrievalSettings,
    subject_vector: npt.NDArray[np.float32] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Retrieve the memories for ``query`` with the recipe named by ``settings.variant``."""
    recipe = recipe_named(settings.variant)
    return retrieve_with(snapshot, query, query_vector, settings, recipe, subject_vector, trace)


def retrieve_with(
    snapshot: ScopeSnapshot,
    query: str,
    query_vector: npt.NDArray[np.float32],
    settings: RetrievalSettings,
    recipe: Recipe,
    subject_vector: npt.NDArray[np.float32] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Retrieve with an explicit :class:`Recipe` (research harnesses use this). ``subject_vector``:
    the embedding of :func:`subject_query`'s text, for the question's own subject (None: there is none).
    ``trace``: attach the :class:`~anchormem.model.Trace` of this run (``SearchResult.trace``)."""
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    if snapshot.facts and q.shape[0] != snapshot.fact_vectors.shape[1]:
        raise InputError(f"query vector has dim {q.shape[0]}, facts have dim {snapshot.fact_vectors.shape[1]}")
    n_scores = candidate_count(settings, recipe)  # read by a search through the index (``index.ann``)
    fact_scores = ann_fact_scores(snapshot, q, n_scores) if snapshot.facts else np.zeros(0, np.float32)
    has_events = bool(snapshot.events) and snapshot.event_vectors.size > 0
    if has_events and q.shape[0] != snapshot.event_vectors.shape[1]:
        raise InputError(f"query vector has dim {q.shape[0]}, events have dim {snapshot.event_vectors.shape[1]}")
    event_scores = snapshot.event_vectors @ q if has_events else np.zeros(0, np.float32)
    events = top_rows(event_scores, settings.k_events) if recipe.return_events or recipe.w_events else []
    limit = settings.max_contexts

    run: Hybrid | None = None
    if not snapshot.contexts:
        chosen, scores = [], {}
    elif recipe.mode == "hybrid":
        run = _hybrid(snapshot, query, fact_scores, events, recipe, settings, subject_vector)
        chosen, scores = run.chosen, run.scores
    elif recipe.mode in ("paper", "facts", "rrf", "bm25", "chunks"):
        ranked = _ranked(snapshot, query, q, fact_scores, recipe, settings)
        scores = {row: 1.0 / (1 + r) for r, row in enumerate(ranked)}
        paper = recipe.mode == "paper"  # exactly §4.3: no coverage rules
        chosen = select_ranked(
            snapshot,
            ranked,
            limit,
            skip_covered=2.0 if paper else 1.0,
            absorb=not paper,
            max_chars=None if paper else settings.max_chars,
        )
    else:
        raise ConfigError(f"unknown recipe mode {recipe.mode!r}")
    anchor_scores = anchor_order(snapshot, query, fact_scores, settings.other_language_lexical)
    depth = max(settings.k_facts, recipe.depth)
    anchors_from = [(f, float(fact_scores[f])) for f, _ in top_rows(anchor_scores, depth)]
    returned_events = events if recipe.return_events else []
    shown = {e: snapshot.events[e] for e, _ in returned_events}
    if recipe.mode != "paper":  # §4.3 returns the top events as they are
        shown = what_they_add(snapshot, events_that_add(snapshot, returned_events, chosen), chosen)
        returned_events = [(e, score) for e, score in returned_events if e in shown and shown[e].text]
    result = _build_result(
        snapshot, query, chosen, scores, fact_scores, anchors_from, returned_events, shown, run, anchor_scores
    )
    if trace:
        result = replace(result, trace=trace_of(snapshot, result, recipe, settings, run))
    return result


def top_rows(scores: npt.NDArray[np.floating], k: int) -> list[tuple[int, float]]:
    """The ``k`` best rows, best first; ties broken by lower row."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return []
    part = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
    order = part[np.lexsort((part, -scores[part]))]
    return [(int(i), float(scores[i])) for i in order]


def contexts_of(snapshot: ScopeSnapshot, fact_rows: list[int]) -> list[int]:
    """Context rows of the given facts, deduplicated, in first-appearance order."""
    fact_context = snapshot.fact_context
    seen: dict[int, None] = {}
    for f in fact_rows:
        row = int(fact_context[f])
        if row >= 0:
            seen.setdefault(row, None)
    return list(seen)


# -- the default recipe -----------------------------------------------------------------------------


def _relevance(
    snapshot: ScopeSnapshot,
    query: str,
    fact_scores: Scores,
    events: Events,
    recipe: Recipe,
    settings: RetrievalSettings,
) -> Relevance:
    n = len(snapshot.contexts)
    parts: list[tuple[str, float, Floats, Floats, Floats]] = []

    def signal(name: str, weight: float, raw: Floats) -> None:
        scaled = normalise(raw)
        spread = shared_turn_mean(snapshot, scaled) if recipe.shared_turns else scaled
        parts.append((name, weight, raw, scaled, spread))

    if recipe.w_dense and snapshot.facts:
        signal("anchor", recipe.w_dense, context_soft_max(snapshot, fact_scores, recipe.dense_temperature))
    if recipe.w_lexical:
        index = snapshot.context_bm25
        terms = index.query_terms(query)
        lexical = index.scores_for_terms(terms)
        if recipe.expand_facts and snapshot.facts:
            best = [f for f, _ in top_rows(fact_scores, recipe.expand_facts)]
            extra = [t for t in expansion_terms(snapshot, query, best, recipe.expand_terms) if t not in terms]
            lexical = lexical + recipe.expand_weight * index.scores_for_terms(extra)
        lift = 1.0 + other_language_weight(snapshot, settings.other_language_lexical)
        signal("lexical", recipe.w_lexical * lift, lexical)
        pieces = other_language_weight(snapshot, settings.other_language_subwords)
        if pieces > 0.0:  # a scope not written in English: the word pieces the embedder cannot join
            signal("subwords", recipe.w_lexical * pieces, snapshot.context_subwords.scores(query))
    if recipe.w_fact_lexical and snapshot.facts:
        signal("fact_lexical", recipe.w_fact_lexical, context_max(snapshot, snapshot.fact_bm25.scores(query)))
    if recipe.w_events and events:
        signal("events", recipe.w_events, event_votes(snapshot, events, fact_scores))
    values = np.zeros(n)
    total = sum(w for _, w, *_ in parts)
    for _, w, _, _, spread in parts:
        values += w * spread
    values /= max(total, 1e-12)
    replies: dict[int, int] = {}
    if recipe.shared_turns and n:
        values, replies = exchanges(
            snapshot, values, lambda v: [r for r, _ in top_rows(v, max(recipe.pool, 100))], fact_scores
        )
    return Relevance(values, parts, replies)


def _hybrid(
    snapshot: ScopeSnapshot,
    query: str,
    fact_scores: npt.NDArray[np.floating],
    events: list[tuple[int, float]],
    recipe: Recipe,
    settings: RetrievalSettings,
    subject_vector: npt.NDArray[np.float32] | None = None,
) -> Hybrid:
    """Relevance, then the rerank stages on the candidate pool, then the selection on the adjusted scores
    (maximal marginal relevance over the best anchors' vectors), best first in the order it took them."""
    rel = _relevance(snapshot, query, fact_scores, events, recipe, settings)
    limit = settings.max_contexts
    pool = [r for r, _ in top_rows(rel.values, max(recipe.pool, 4 * limit))]
    stages = tuple(settings.rerankers) if recipe.rerank else ()
    candidates = Candidates(
        snapshot=snapshot,
        query=query,
        rows=pool,
        relevance=rel.values,
        fact_scores=fact_scores,
        subjects=subjects(snapshot, pool, fact_scores) if snapshot.facts else Subjects({}, {}),
        subject_vector=subject_vector,
        bound=settings.rerank_bound,
    )
    if stages and snapshot.facts:
        apply_stages(candidates, stages)
        if len(candidates.rows) > len(pool):  # a stage brought in a context: its subject neighbours too
            candidates.subjects = subjects(snapshot, candidates.rows, fact_scores)
    adjusted = rel.values.copy()
    final, scale = final_scores(candidates)
    if scale != 1.0:
        adjusted /= scale  # contexts outside the pool keep their order below
    for row, score in final.items():
        adjusted[row] = score
    steps: dict[int, tuple[int, float | None]] = {}
    if recipe.mmr_lambda >= 1.0 or not snapshot.facts:
        chosen = select_ranked(
            snapshot, order_by_score(dict(enumerate(adjusted.tolist()))), limit, max_chars=settings.max_chars
        )
        steps = {row: (i, None) for i, row in enumerate(chosen, 1)}
    else:
        chosen = select_diverse(
            snapshot,
            adjusted,
            BestAnchors(snapshot, fact_scores, rel.replies),
            limit,
            recipe.mmr_lambda,
            max(recipe.pool, 4 * limit),
            max_chars=settings.max_chars,
            steps=steps,
        )
    scores = {row: float(adjusted[row]) for row in chosen}
    return Hybrid(chosen, scores, rel, candidates, steps, scale)


# -- rank-based baselines ---------------------------------------------------------------------------


def _ranked(
    snapshot: ScopeSnapshot,
    query: str,
    query_vector: npt.NDArray[np.float32],
    fact_scores: npt.NDArray[np.floating],
    recipe: Recipe,
    settings: RetrievalSettings,
) -> list[int]:
    if recipe.mode == "paper":
        return contexts_of(snapshot, [f for f, _ in top_rows(fact_scores, settings.k_facts)])
    if recipe.mode == "bm25":
        return [row for row, _ in snapshot.context_bm25.top(query, max(recipe.depth, settings.max_contexts))]
    if recipe.mode == "chunks":  # NaiveRAG: the contexts themselves, embedded and ranked by cosine
        return [row for row, _ in top_rows(snapshot.context_vectors @ query_vector, settings.max_contexts)]
    dense = contexts_of(snapshot, [f for f, _ in top_rows(fact_scores, recipe.depth)])
    if recipe.mode == "facts":
        return dense
    lexical = [row for row, _ in snapshot.context_bm25.top(query, recipe.depth)]
    return order_by_score(rrf([(dense, 1.0), (lexical, 1.0)]))


# -- result -----------------------------------------------------------------------------------------


def _build_result(
    snapshot: ScopeSnapshot,
    query: str,
    chosen: list[int],
    scores: dict[int, float],
    fact_scores: npt.NDArray[np.floating],
    top_facts: list[tuple[int, float]],
    events: list[tuple[int, float]],
    shown: dict[int, Event],
    run: Hybrid | None = None,
    anchor_scores: npt.NDArray[np.floating] | None = None,
    max_anchors: int = 3,
) -> SearchResult:
    """The result of ``chosen``: each context with its anchors (of ``top_facts``, else its best fact by
    ``anchor_scores``, the facts' cosines where None; each shown with its cosine) and the events."""
    fact_context = snapshot.fact_context
    anchors: dict[int, list[FactHit]] = {row: [] for row in chosen}
    for f, score in top_facts:
        row = int(fact_context[f])
        if row in anchors and len(anchors[row]) < max_anchors:
            anchors[row].append(FactHit(snapshot.facts[f], score))
    for row in chosen:  # a context found lexically still shows its best-matching fact
        if not anchors[row] and snapshot.context_facts[row]:
            order = fact_scores if anchor_scores is None else anchor_scores
            best = max(snapshot.context_facts[row], key=lambda f: (float(order[f]), -f))
            anchors[row].append(FactHit(snapshot.facts[best], float(fact_scores[best])))

    event_hits: list[EventHit] = []
    via: dict[int, list[str]] = {row: [] for row in chosen}
    for e, score in events:
        event = shown[e]  # an extractive event says only what the contexts do not (``query.events``)
        fact_rows = snapshot.event_facts[e]
        ctx_rows = contexts_of(snapshot, fact_rows)
        for row in ctx_rows:
            if row in via:
                via[row].append(event.id)
        event_hits.append(
            EventHit(
                event=event,
                score=score,
                context_ids=tuple(snapshot.contexts[r].id for r in ctx_rows),
                facts=tuple(snapshot.facts[f] for f in fact_rows),
                sessions=tuple(dict.fromkeys(snapshot.contexts[r].session for r in ctx_rows)),
            )
        )
    # the selection's order: by score for the ranked selections, by marginal relevance for the diverse one
    best_first = list(chosen)
    dated = mark_dates(run.candidates, best_first) if run is not None else {row: (None, ()) for row in best_first}
    ids = snapshot.contexts
    hits = tuple(
        ContextHit(
            context=ids[row],
            score=float(scores.get(row, 0.0)),
            anchors=tuple(anchors[row]),
            via_events=tuple(via[row]),
            rank=rank,
            latest=dated[row][0],
            newer=tuple(ids[r].id for r in dated[row][1]),
            scope=snapshot.scope_of(row),
            relevance=float(run.relevance.values[row]) if run is not None else float(scores.get(row, 0.0)),
            adjustments=tuple(run.candidates.adjustments.get(row, {}).items()) if run is not None else (),
        )
        for rank, row in enumerate(best_first, 1)
    )
    position = {row: i for i, row in enumerate(best_first)}
    reading = tuple(position[row] for row in sorted(chosen))
    return SearchResult(query=query, contexts=hits, events=tuple(event_hits), reading_order=reading)
