"""Rerank stages: named, bounded adjustments to the relevance of candidate contexts.

Retrieval orders contexts by their own evidence (``relevance``: the anchors' cosine and BM25, fused,
in [0, 1]). A *stage* may then adjust the candidates' scores, under one contract:

- it sees the candidates (the ``pool`` most relevant contexts), their relevance, which of them are on the
  same subject (:mod:`anchormem.search.rerank.subject`) and the adjustments of the stages before it;
- it returns an adjustment per candidate; the core clips each one to ``±RetrievalSettings.rerank_bound``
  (default 0.1), and a context whose relevance is below ``FLOOR`` of the best one is never raised (weak
  evidence is not lifted above strong evidence, whatever a stage says);
- the score is ``relevance + sum(adjustments)`` (at least 0), divided by the best such sum when that passes
  1 (so no score exceeds 1 and no ties are made); each hit keeps its relevance and each stage's adjustment
  (``ContextHit.relevance``, ``ContextHit.adjustments``), and the trace says why (``Trace.scale``);
- a stage names the languages it understands (``languages``: ``("*",)`` for any); on a query it does not
  understand it returns nothing, which leaves the plain ranking.

The stages are listed by name in ``RetrievalSettings.rerankers`` (in order); leave one out to switch it
off. Built in (``STAGES``): ``own-words`` and ``recency`` (any language), ``tense`` and ``before-change``
(English).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import numpy as np
import numpy.typing as npt

from anchormem.errors import ConfigError
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.registries import RERANKERS
from anchormem.search.rerank.subject import Subjects
from anchormem.text.voice import context_speakers

FLOOR = 0.5  # share of the best relevance below which no stage raises a context


@dataclass
class Candidates:
    """What a stage sees. ``rows`` are candidate context rows, most relevant first; ``relevance`` covers
    every context of the snapshot; ``adjustments[row][stage]`` holds what earlier stages gave."""

    snapshot: ScopeSnapshot
    query: str
    rows: list[int]
    relevance: npt.NDArray[np.float64]
    fact_scores: npt.NDArray[np.floating]
    subjects: Subjects
    subject_vector: npt.NDArray[np.float32] | None = None
    bound: float = 0.1
    adjustments: dict[int, dict[str, float]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # stage -> why it acted (for the trace)
    spoken: dict[int, frozenset[str]] = field(default_factory=dict)  # row -> its speakers, read once (``speakers``)

    def adjusted(self, row: int) -> float:
        return float(self.relevance[row]) + sum(self.adjustments.get(row, {}).values())

    def given(self, row: int, stage: str) -> float:
        return self.adjustments.get(row, {}).get(stage, 0.0)

    def speakers(self, row: int) -> frozenset[str]:
        """Who speaks in context ``row`` (:func:`anchormem.text.voice.context_speakers`), read once a search."""
        found = self.spoken.get(row)
        if found is None:
            found = self.spoken[row] = context_speakers(self.snapshot.contexts[row].text)
        return found


class Reranker(Protocol):
    """One rerank stage (see the module docstring for the contract)."""

    name: ClassVar[str]
    languages: ClassVar[tuple[str, ...]]

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        """Adjustments per candidate row (rows left out: 0); may add rows to ``candidates.rows``."""
        ...


STAGES = RERANKERS
"""Every rerank stage by name (:data:`anchormem.registries.RERANKERS`: the built-ins, then third parties')."""


def register(factory: Callable[[], Reranker]) -> Callable[[], Reranker]:
    """Register a stage under its ``name`` (experiments, and a third party's stage in code)."""
    STAGES[factory().name] = factory
    return factory


def stage_named(name: str) -> Reranker:
    if name not in STAGES:
        raise ConfigError(f"unknown rerank stage {name!r}; known: {', '.join(sorted(STAGES))}")
    return STAGES[name]()


def apply_stages(candidates: Candidates, names: tuple[str, ...]) -> Candidates:
    """Run the named stages in order, clipping each adjustment to the bound and never raising a context
    below ``FLOOR`` of the best relevance."""
    if not candidates.rows:
        return candidates
    peak = max(float(candidates.relevance[r]) for r in candidates.rows)
    for name in names:
        stage = stage_named(name)
        for row, value in stage.adjust(candidates).items():
            value = float(np.clip(value, -candidates.bound, candidates.bound))
            if value > 0 and float(candidates.relevance[row]) < FLOOR * peak:
                continue
            if value:
                candidates.adjustments.setdefault(row, {})[name] = value
                if row not in candidates.rows:
                    candidates.rows.append(row)
    return candidates


def final_scores(candidates: Candidates) -> tuple[dict[int, float], float]:
    """Per candidate row, ``(relevance + sum(adjustments)) / scale``, at least 0, and the ``scale``: 1, or the
    best adjusted score when a stage took it past 1 (dividing keeps the order, where clipping at 1 would
    make ties)."""
    adjusted = {row: max(0.0, candidates.adjusted(row)) for row in candidates.rows}
    scale = max(1.0, *adjusted.values()) if adjusted else 1.0
    return {row: value / scale for row, value in adjusted.items()}, scale
