"""What one run of the default recipe computed on the way (:func:`anchormem.search.retrieve.retrieve`), kept
for the trace (:mod:`anchormem.search.trace`): the relevance signals, the stages' candidates, the selection."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from anchormem.search.rerank.stage import Candidates

Floats = npt.NDArray[np.float64]


@dataclass
class Relevance:
    values: Floats  # per context, the weighted mean of the spread signals, in [0, 1], lifted by replies
    signals: list[tuple[str, float, Floats, Floats, Floats]]  # name, weight, raw, normalised, spread
    replies: dict[int, int]  # row -> the passage of the reply to it whose value it took (``exchange_lift``)


@dataclass
class Hybrid:
    """What one run of the default recipe computed on the way: the choice, its scores, and what the trace
    reads (relevance signals, the stages' candidates, the selection steps)."""

    chosen: list[int]
    scores: dict[int, float]
    relevance: Relevance
    candidates: Candidates
    steps: dict[int, tuple[int, float | None]]  # row -> (selection step, redundancy)
    scale: float = 1.0  # what the adjusted scores were divided by (``rerank.final_scores``)
