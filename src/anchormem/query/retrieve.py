"""Query pipeline: anchors (facts, events) -> contexts, with provenance (paper §4.3 and our recipe).

A *recipe* names how candidate contexts are scored and chosen (``RetrievalSettings.variant``):

- ``paper``: exactly §4.3 — the top ``k_facts`` facts by cosine, mapped to their contexts
  (deduplicated, in fact order), plus the top ``k_events`` events.
- ``facts``: facts by cosine mapped to contexts until ``max_contexts`` distinct contexts.
- ``bm25``: BM25 (stemmed) top contexts; a lexical baseline without anchors or events.
- ``rrf``: reciprocal rank fusion of the facts' cosine ranking (mapped to contexts) and the
  contexts' BM25 ranking; a fusion baseline.
- ``anchormem`` (default): each context gets two signals, a soft maximum of its anchors' (facts')
  cosines (the best one, raised a little when several come close: a window in which several
  messages match gains) and BM25 (stemmed) of its text, DATE line included; both are normalised
  and averaged; contexts are then chosen by maximal marginal relevance over their best anchors'
  vectors (a context that repeats what a chosen one says gives way to one that adds something),
  skipping contexts whose turns are all covered. The top events are returned beside, except those
  whose source contexts are all returned already, and an extractive event says only what the
  returned contexts do not (``query.events``). ``max_contexts`` counts full windows: a chat window
  cut short takes the share of a window its text fills (``query.select``). For a question about the
  present, the latest statements on its subject come first (``query.recency``); for a question about
  before a change, the statements from before it (``query.earlier``).
  Each normalised signal is first spread over the turns that overlapping windows share (a turn
  scores its best window, a window the mean of its turns), so a window next to a strong one
  gains: the answer often continues past the matched window.
- ``anchormem-v2``: ``anchormem`` with the plain best fact as the dense signal (the default
  before the soft maximum; kept for the ladder).
- ``anchormem-v1``: ``anchormem-v2`` without that spreading and without the recency rule (the first
  default; kept for the ladder).
- ``anchormem-events``: ``anchormem`` where events also vote for the contexts of their source
  facts (measured weaker on LoCoMo; kept for the ladder).
- ``no-events``: ``anchormem`` without events in the result.
- ``chunks``: NaiveRAG — the contexts themselves embedded, top by cosine (baseline; embeds every
  context of the scope on first use).

Returned contexts are *best first*: by score, highest first (ties: the order they were chosen in),
each with its ``rank`` (1 = best); ``SearchResult.in_reading_order()`` gives them in conversation
order (session, then position, i.e. the order of ``snapshot.contexts``). Events come best first.
Questions about the present favour the latest statement on their subject, and returned contexts on
the same subject are compared by date (:mod:`anchormem.query.recency`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anchormem.config import RetrievalSettings
from anchormem.errors import ConfigError, InputError
from anchormem.model import ContextHit, Event, EventHit, FactHit, SearchResult
from anchormem.query.earlier import earlier_statements, subject_query
from anchormem.query.events import events_that_add, what_they_add
from anchormem.query.fuse import order_by_score, rrf
from anchormem.query.recency import (
    COMPARED_ON_SUBJECT,
    compare_dates,
    latest_on_subject,
    latest_statements,
    on_subject,
    put_first,
)
from anchormem.query.scoring import (
    context_max,
    context_soft_max,
    event_votes,
    expansion_terms,
    normalise,
    shared_turn_mean,
)
from anchormem.query.select import select_diverse, select_ranked
from anchormem.query.snapshot import ScopeSnapshot

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Recipe:
    """How one retrieval variant scores and chooses contexts."""

    mode: str = "hybrid"  # "hybrid" | "rrf" | "paper" | "facts" | "bm25"
    w_dense: float = 1.0  # cosine of a context's best facts (soft maximum, ``dense_temperature``)
    dense_temperature: float = 0.08  # 0: the best fact alone
    w_lexical: float = 1.0  # BM25 of the context text
    w_fact_lexical: float = 0.0  # BM25 of a context's best fact
    w_events: float = 0.0  # events voting for their source facts' contexts
    expand_facts: int = 0  # query expansion: words of this many best facts (0: off; no gain measured)
    expand_terms: int = 10
    expand_weight: float = 0.2
    shared_turns: bool = True  # each signal spread over the turns windows share (``shared_turn_mean``)
    mmr_lambda: float = 0.7  # 1.0: plain ranking
    pool: int = 40  # candidates considered by the selection (at least 4x the contexts asked for)
    depth: int = 100  # ranked candidates per signal (rank-based modes)
    return_events: bool = True
    recency: bool = True  # questions about the present favour the latest statement (``query.recency``)


RECIPES: dict[str, Recipe] = {
    "anchormem": Recipe(),
    "anchormem-v1": Recipe(shared_turns=False, recency=False, dense_temperature=0.0),
    "anchormem-v2": Recipe(dense_temperature=0.0),
    "anchormem-events": Recipe(w_events=1.0),
    "no-events": Recipe(return_events=False),
    "rrf": Recipe(mode="rrf", return_events=False),
    "paper": Recipe(mode="paper"),
    "facts": Recipe(mode="facts", return_events=False),
    "bm25": Recipe(mode="bm25", return_events=False),
    "chunks": Recipe(mode="chunks", return_events=False),
}


def recipe_named(variant: str) -> Recipe:
    """The recipe of the retrieval variant ``variant``; a :class:`ConfigError` for an unknown name."""
    if variant not in RECIPES:
        raise ConfigError(f"unknown retrieval variant {variant!r}; known: {', '.join(sorted(RECIPES))}")
    return RECIPES[variant]


def retrieve(
    snapshot: ScopeSnapshot,
    query: str,
    query_vector: npt.NDArray[np.float32],
    settings: RetrievalSettings,
    subject_vector: npt.NDArray[np.float32] | None = None,
) -> SearchResult:
    """Retrieve the memories for ``query`` with the recipe named by ``settings.variant``."""
    return retrieve_with(snapshot, query, query_vector, settings, recipe_named(settings.variant), subject_vector)


def query_vectors(
    embed: Callable[[list[str]], npt.NDArray[np.float32]], snapshot: ScopeSnapshot, query: str
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None]:
    """The vectors :func:`retrieve` takes for ``query``: the query's, and its own subject's when it has
    one (:func:`anchormem.query.earlier.subject_query`), embedded in one call; else None."""
    subject = subject_query(snapshot, query)
    vectors = embed([query] if subject is None else [query, subject])
    return vectors[0], None if subject is None else vectors[1]


def retrieve_with(
    snapshot: ScopeSnapshot,
    query: str,
    query_vector: npt.NDArray[np.float32],
    settings: RetrievalSettings,
    recipe: Recipe,
    subject_vector: npt.NDArray[np.float32] | None = None,
) -> SearchResult:
    """Retrieve with an explicit :class:`Recipe` (research harnesses use this). ``subject_vector``:
    the embedding of :func:`subject_query`'s text, for the question's own subject (None: there is none)."""
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    if snapshot.facts and q.shape[0] != snapshot.fact_vectors.shape[1]:
        raise InputError(f"query vector has dim {q.shape[0]}, facts have dim {snapshot.fact_vectors.shape[1]}")
    fact_scores = snapshot.fact_vectors @ q if snapshot.facts else np.zeros(0, np.float32)
    has_events = bool(snapshot.events) and snapshot.event_vectors.size > 0
    if has_events and q.shape[0] != snapshot.event_vectors.shape[1]:
        raise InputError(f"query vector has dim {q.shape[0]}, events have dim {snapshot.event_vectors.shape[1]}")
    event_scores = snapshot.event_vectors @ q if has_events else np.zeros(0, np.float32)
    events = top_rows(event_scores, settings.k_events) if recipe.return_events or recipe.w_events else []
    limit = settings.max_contexts

    weighed: frozenset[int] = frozenset()  # rows compared by date with the ones the recency rule put first
    if recipe.mode == "hybrid":
        chosen, scores, weighed = _hybrid(snapshot, query, fact_scores, events, recipe, limit, subject_vector)
    elif recipe.mode in ("paper", "facts", "rrf", "bm25", "chunks"):
        ranked = _ranked(snapshot, query, q, fact_scores, recipe, settings)
        scores = {row: 1.0 / (1 + r) for r, row in enumerate(ranked)}
        paper = recipe.mode == "paper"  # exactly §4.3: no coverage rules
        chosen = select_ranked(snapshot, ranked, limit, skip_covered=2.0 if paper else 1.0, absorb=not paper)
    else:
        raise ConfigError(f"unknown recipe mode {recipe.mode!r}")
    anchors_from = top_rows(fact_scores, max(settings.k_facts, recipe.depth))
    returned_events = events if recipe.return_events else []
    shown = {e: snapshot.events[e] for e, _ in returned_events}
    if recipe.mode != "paper":  # §4.3 returns the top events as they are
        shown = what_they_add(snapshot, events_that_add(snapshot, returned_events, chosen), chosen)
        returned_events = [(e, score) for e, score in returned_events if e in shown and shown[e].text]
    return _build_result(snapshot, query, chosen, scores, fact_scores, anchors_from, returned_events, shown, weighed)


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


def _hybrid(
    snapshot: ScopeSnapshot,
    query: str,
    fact_scores: npt.NDArray[np.floating],
    events: list[tuple[int, float]],
    recipe: Recipe,
    limit: int,
    subject_vector: npt.NDArray[np.float32] | None = None,
) -> tuple[list[int], dict[int, float], frozenset[int]]:
    n = len(snapshot.contexts)
    if n == 0:
        return [], {}, frozenset()
    relevance = np.zeros(n)
    total = 0.0

    signals: list[Floats] = []

    def signal(values: Floats) -> Floats:
        scaled = normalise(values)
        signals.append(shared_turn_mean(snapshot, scaled) if recipe.shared_turns else scaled)
        return signals[-1]

    if recipe.w_dense and snapshot.facts:
        relevance += recipe.w_dense * signal(context_soft_max(snapshot, fact_scores, recipe.dense_temperature))
        total += recipe.w_dense
    if recipe.w_lexical:
        index = snapshot.context_bm25
        terms = index.query_terms(query)
        lexical = index.scores_for_terms(terms)
        if recipe.expand_facts and snapshot.facts:
            best = [f for f, _ in top_rows(fact_scores, recipe.expand_facts)]
            extra = [t for t in expansion_terms(snapshot, query, best, recipe.expand_terms) if t not in terms]
            lexical = lexical + recipe.expand_weight * index.scores_for_terms(extra)
        relevance += recipe.w_lexical * signal(lexical)
        total += recipe.w_lexical
    if recipe.w_fact_lexical and snapshot.facts:
        relevance += recipe.w_fact_lexical * signal(context_max(snapshot, snapshot.fact_bm25.scores(query)))
        total += recipe.w_fact_lexical
    if recipe.w_events and events:
        relevance += recipe.w_events * signal(event_votes(snapshot, events, fact_scores))
        total += recipe.w_events
    relevance /= max(total, 1e-12)
    if recipe.mmr_lambda >= 1.0 or not snapshot.facts:
        chosen = select_ranked(snapshot, order_by_score(dict(enumerate(relevance.tolist()))), limit)
    else:
        chosen = select_diverse(
            snapshot,
            relevance,
            _best_anchor_vectors(snapshot, fact_scores),
            limit,
            recipe.mmr_lambda,
            max(recipe.pool, 4 * limit),
        )
    scores = {row: float(relevance[row]) for row in chosen}
    weighed: frozenset[int] = frozenset()
    if recipe.recency and signals:
        # the best-scored context keeps a place: the rule may have picked passing mentions
        if snapshot.facts:
            first, compared = latest_statements(snapshot, query, fact_scores, relevance)
            if not first:  # its returned contexts are compared by score: nothing weighed
                first = earlier_statements(snapshot, query, subject_vector, relevance)
        else:  # no anchors: the subject is the strongest normalised signal
            subject = np.maximum.reduce(signals)
            first = latest_on_subject(snapshot, query, relevance, subject)
            compared = on_subject(subject, COMPARED_ON_SUBJECT)
        first = first[: max(1, limit - 1)]
        chosen, scores = put_first(chosen, scores, first, limit, snapshot.context_share)
        if first:
            weighed = frozenset(compared)
    return chosen, scores, weighed


def _best_anchor_vectors(snapshot: ScopeSnapshot, fact_scores: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """Row i: the vector of context i's fact closest to the query (zeros without facts)."""
    order, starts, rows = snapshot.fact_segments
    out = np.zeros((len(snapshot.contexts), snapshot.fact_vectors.shape[1]), dtype=np.float32)
    if order.size == 0:
        return out
    values = np.asarray(fact_scores, dtype=np.float64)[order]
    seg_max = np.maximum.reduceat(values, starts)
    seg_id = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, order.size]))
    is_max = values >= seg_max[seg_id]
    first = np.full(starts.size, -1, dtype=np.int64)
    hits = np.flatnonzero(is_max)[::-1]  # reversed so the first maximum of each group wins
    first[seg_id[hits]] = hits
    out[rows] = snapshot.fact_vectors[order[first]]
    return out


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
    weighed: frozenset[int] = frozenset(),
    max_anchors: int = 3,
) -> SearchResult:
    fact_context = snapshot.fact_context
    anchors: dict[int, list[FactHit]] = {row: [] for row in chosen}
    for f, score in top_facts:
        row = int(fact_context[f])
        if row in anchors and len(anchors[row]) < max_anchors:
            anchors[row].append(FactHit(snapshot.facts[f], score))
    for row in chosen:  # a context found lexically still shows its best-matching fact
        if not anchors[row] and snapshot.context_facts[row]:
            best = max(snapshot.context_facts[row], key=lambda f: (float(fact_scores[f]), -f))
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
            )
        )
    picked = {row: i for i, row in enumerate(chosen)}
    best_first = sorted(chosen, key=lambda row: (-float(scores.get(row, 0.0)), picked[row]))
    dated = compare_dates(snapshot, best_first, [float(scores.get(row, 0.0)) for row in best_first], weighed)
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
        )
        for rank, row in enumerate(best_first, 1)
    )
    position = {row: i for i, row in enumerate(best_first)}
    reading = tuple(position[row] for row in sorted(chosen))
    return SearchResult(query=query, contexts=hits, events=tuple(event_hits), reading_order=reading)
