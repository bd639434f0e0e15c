"""Why each returned context was returned: the trace of the search that ran, formatted.

:func:`explain` reads ``SearchResult.trace`` (``search(..., trace=True)``: retrieval records each signal,
each rerank stage's adjustment and each selection step while it scores, :class:`anchormem.model.Trace`).
Nothing is recomputed, so the explanation is of the very search that ran, with its scope, filters and
settings.

For the default (hybrid) recipes a context's relevance is the weighted mean of its spread signals; the
explanation splits its score into additive contributions that sum to it:

- ``anchor``: the cosine of the context's best anchor (fact), normalised;
- ``lexical``: BM25 of the context's text, normalised;
- ``subwords``: BM25 of the pieces of its words, in a scope not written in English (``anchormem.text.subwords``);
- ``events``: the events' votes (only for recipes that let events vote);
- ``shared_turns``: what spreading over the turns shared with overlapping windows added;
- ``reply``: what the message took from the reply to it, when a passage of that reply scored higher
  (``reply`` names the passage: :func:`anchormem.search.scoring.exchange_lift`);
- one entry per rerank stage that moved it (``own-words``, ``recency``, ``tense``, ``before-change``), each within the
  bound, divided by the result's ``scale`` like every part (1 unless a stage took a score past 1); a
  score held at 0 says so in ``clipped``.

``selection`` says how the context was chosen: its rank by relevance among all contexts, the step at
which the selection took it, and the redundancy (best similarity of its anchor to those already chosen)
maximal marginal relevance weighed it by. Rank-based baselines report their rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from anchormem.errors import InputError
from anchormem.model import ContextTrace, SearchResult, SignalTrace


@dataclass(frozen=True)
class Explanation:
    """The signals, stages and selection of one returned context."""

    context_id: str
    score: float  # the score the search returned
    relevance: float  # its own evidence, before the stages
    contributions: dict[str, float]  # additive parts of ``score`` (signals, shared turns, stages)
    signals: list[SignalTrace] = field(default_factory=list)
    relevance_rank: int | None = None  # 1 = most relevant context of the memory
    picked_at: int | None = None  # selection step (1 = first picked)
    redundancy: float | None = None  # similarity to the contexts picked before it (MMR penalty input)
    adjustments: dict[str, float] = field(default_factory=dict)  # rerank stage -> adjustment
    clipped: float = 0.0  # what clipping the score to [0, 1] took off (or added)
    same_subject: list[str] = field(default_factory=list)  # returned context ids on its subject
    best_anchor: str | None = None
    reply: str | None = None  # the reply's passage whose relevance it took (``query.scoring.exchange_lift``)


@dataclass(frozen=True)
class SearchExplanation:
    variant: str
    mode: str
    mmr_lambda: float
    shared_turns: bool
    stages: list[str]
    bound: float
    notes: dict[str, str]
    considered: int
    max_chars: int | None
    used_chars: int
    scale: float
    contexts: list[Explanation]


def explain(result: SearchResult) -> SearchExplanation:
    """The explanation of ``result``, which must carry its trace (``search(..., trace=True)``)."""
    trace = result.trace
    if trace is None:
        raise InputError("this result has no trace: search with trace=True to explain it")
    return SearchExplanation(
        variant=trace.variant,
        mode=trace.mode,
        mmr_lambda=trace.mmr_lambda,
        shared_turns=trace.shared_turns,
        stages=list(trace.stages),
        bound=trace.bound,
        notes=dict(trace.notes),
        considered=trace.considered,
        max_chars=trace.max_chars,
        used_chars=trace.used_chars,
        scale=trace.scale,
        contexts=[_one(c, trace.scale) for c in trace.contexts],
    )


def _one(row: ContextTrace, scale: float) -> Explanation:
    total = (sum(s.weight for s in row.signals) or 1.0) * scale
    contributions = {s.name: s.weight * s.normalised / total for s in row.signals}
    if row.signals:
        spread = sum(s.weight * s.spread for s in row.signals) / total
        contributions["shared_turns"] = sum(s.weight * (s.spread - s.normalised) for s in row.signals) / total
        if row.reply is not None:  # the relevance it took from the reply to it, above its own
            contributions["reply"] = row.relevance / scale - spread
    else:
        contributions["rank"] = row.relevance
    adjustments = dict(row.adjustments)
    contributions.update({stage: value / scale for stage, value in adjustments.items()})
    clipped = row.score - (row.relevance + sum(adjustments.values())) / scale
    if abs(clipped) > 1e-12:
        contributions["clipped"] = clipped
    return Explanation(
        context_id=row.context_id,
        score=row.score,
        relevance=row.relevance,
        contributions=contributions,
        signals=list(row.signals),
        relevance_rank=row.relevance_rank,
        picked_at=row.picked_at,
        redundancy=row.redundancy,
        adjustments=adjustments,
        clipped=clipped if abs(clipped) > 1e-12 else 0.0,
        same_subject=list(row.same_subject),
        best_anchor=row.best_anchor,
        reply=row.reply,
    )
