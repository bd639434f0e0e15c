"""The trace of one retrieval (``search(..., trace=True)``): what each signal gave each returned context,
what each rerank stage moved, why each context was picked. Retrieval writes it while it scores; the
inspector and :mod:`anchormem.search.explain` only format it, so an explanation is always of the search
that ran."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SignalTrace:
    """One relevance signal of one context: raw value, normalised to [0, 1], after turn spreading, and its
    weight in the fused relevance (the weighted mean of the spread values)."""

    name: str  # "anchor" (best anchor cosine, soft maximum), "lexical" (BM25), …
    weight: float
    raw: float | None  # None: no evidence of this kind (e.g. a context without anchors)
    normalised: float
    spread: float


@dataclass(frozen=True)
class ContextTrace:
    """Why one context was returned where it was."""

    context_id: str
    relevance: float
    relevance_rank: int  # 1 = the most relevant context of the memory searched
    score: float
    signals: tuple[SignalTrace, ...] = ()
    adjustments: tuple[tuple[str, float], ...] = ()  # (stage, value), each within the bound
    picked_at: int | None = None  # selection step (1 = picked first)
    redundancy: float | None = None  # best similarity of its anchor to the ones picked before (MMR)
    same_subject: tuple[str, ...] = ()  # returned context ids on its subject (query.subject)
    best_anchor: str | None = None  # the fact id that speaks for it
    reply: str | None = None  # the reply's passage whose relevance it took (``query.scoring.exchange_lift``)


@dataclass(frozen=True)
class Trace:
    """One search's trace. ``notes``: (stage, why it acted) for the stages that moved something."""

    variant: str
    mode: str
    stages: tuple[str, ...]
    bound: float
    mmr_lambda: float
    shared_turns: bool
    considered: int  # candidate contexts the stages and the selection looked at
    max_chars: int | None
    used_chars: int
    scale: float = 1.0  # scores are (relevance + adjustments) / scale (``query.rerank.final_scores``)
    contexts: tuple[ContextTrace, ...] = ()
    notes: tuple[tuple[str, str], ...] = field(default=())
