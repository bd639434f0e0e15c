"""Gold evidence of LoCoMo questions: cleaning and evidence recall.

LoCoMo's ``evidence`` lists name the dialogue turns (``dia_id`` such as ``"D3:7"``) that
support an answer. A handful of entries are malformed, so every list is cleaned with these
rules, applied in order:

1. **Split** each string on semicolons, commas and whitespace: ``"D8:6; D9:17"`` and
   ``"D9:1 D4:4 D4:6"`` hold several ids.
2. **Normalise** each piece matching ``D<session>:<turn>`` with an optional stray colon
   after the ``D`` and leading zeros: ``"D:11:26"`` → ``"D11:26"``, ``"D30:05"`` → ``"D30:5"``.
   A piece that does not match (e.g. a bare ``"D"``) is dropped.
3. **Drop** ids of turns that do not exist in the sample's conversation.
4. **Deduplicate**, keeping the first occurrence, so the order of the file is kept.

Evidence recall of one question is ``|gold ∩ retrieved| / |gold|`` over the cleaned gold ids.
A question whose cleaned evidence is empty (four in categories 1–4 of LoCoMo) has no recall:
it is left out of the mean and counted separately.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

__all__ = ["RecallSummary", "clean_evidence", "evidence_recall", "normalize_dia_id", "summarize_recall"]

_SEPARATORS = re.compile(r"[;,\s]+")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")


def normalize_dia_id(piece: str) -> str | None:
    """``"D:11:26"`` → ``"D11:26"``, ``"D30:05"`` → ``"D30:5"``; None when not a dia_id."""
    match = _DIA_ID.fullmatch(piece.strip())
    if match is None:
        return None
    return f"D{int(match.group(1))}:{int(match.group(2))}"


def clean_evidence(raw: Iterable[str], turn_ids: Collection[str]) -> tuple[str, ...]:
    """The cleaned gold evidence of one question (rules in the module docstring)."""
    cleaned: dict[str, None] = {}
    for entry in raw:
        for piece in _SEPARATORS.split(entry):
            dia_id = normalize_dia_id(piece) if piece else None
            if dia_id is not None and dia_id in turn_ids:
                cleaned.setdefault(dia_id, None)
    return tuple(cleaned)


def evidence_recall(gold: Collection[str], retrieved: Collection[str]) -> float | None:
    """Share of the gold turn ids found in ``retrieved``; None when there is no gold evidence."""
    gold_set = set(gold)
    if not gold_set:
        return None
    return len(gold_set & set(retrieved)) / len(gold_set)


@dataclass(frozen=True)
class RecallSummary:
    """Mean evidence recall over the questions that have gold evidence."""

    recall: float | None  # None when no question had gold evidence
    scored: int  # questions with gold evidence
    no_evidence: int  # questions left out because their cleaned evidence is empty


def summarize_recall(pairs: Iterable[tuple[Sequence[str], Collection[str]]]) -> RecallSummary:
    """Mean recall of ``(gold, retrieved)`` pairs, leaving out (and counting) empty gold."""
    values: list[float] = []
    no_evidence = 0
    for gold, retrieved in pairs:
        value = evidence_recall(gold, retrieved)
        if value is None:
            no_evidence += 1
        else:
            values.append(value)
    mean = sum(values) / len(values) if values else None
    return RecallSummary(recall=mean, scored=len(values), no_evidence=no_evidence)
