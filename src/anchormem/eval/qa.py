"""The question/answer annotations of a LoCoMo-format file.

The file is a JSON list of samples; each has a ``sample_id``, a ``conversation``
(``session_N`` lists of turns with a ``dia_id``) and a ``qa`` list of
``{question, answer, evidence, category}`` (category 5, adversarial, carries
``adversarial_answer`` instead of ``answer`` and is left out by default).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchormem.errors import InputError, NotFoundError
from anchormem.eval.evidence import clean_evidence

__all__ = [
    "CATEGORY_NAMES",
    "DEFAULT_CATEGORIES",
    "Question",
    "load_questions",
    "load_turn_ids",
    "questions_from_samples",
    "read_samples",
    "select_samples",
    "turn_ids_from_samples",
]

CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
DEFAULT_CATEGORIES: tuple[int, ...] = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"session_\d+")


@dataclass(frozen=True)
class Question:
    """One LoCoMo question with its gold answer and evidence."""

    sample_id: str
    qa_index: int  # index into the sample's ``qa`` list
    question: str
    answer: str  # ints in the file become their str()
    category: int
    evidence: tuple[str, ...]  # cleaned (see anchormem.eval.evidence)
    raw_evidence: tuple[str, ...]  # as written in the file

    @property
    def key(self) -> tuple[str, int]:
        return (self.sample_id, self.qa_index)


def read_samples(path: str | Path) -> list[dict[str, Any]]:
    """The samples of a LoCoMo-format JSON file, checked for the fields we use."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise InputError(f"cannot read LoCoMo file {path}: {exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"LoCoMo file {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise InputError(f"LoCoMo file {path}: expected a JSON list of samples, got {type(data).__name__}")
    for position, sample in enumerate(data):
        where = f"LoCoMo file {path}, sample #{position}"
        if not isinstance(sample, dict):
            raise InputError(f"{where}: expected an object, got {type(sample).__name__}")
        if not isinstance(sample.get("sample_id"), str):
            raise InputError(f"{where}: missing or non-string 'sample_id'")
        if not isinstance(sample.get("conversation"), dict):
            raise InputError(f"{where} ({sample['sample_id']}): missing 'conversation' object")
        if not isinstance(sample.get("qa"), list):
            raise InputError(f"{where} ({sample['sample_id']}): missing 'qa' list")
    return data


def select_samples(samples: list[dict[str, Any]], wanted: Collection[str] | None) -> list[dict[str, Any]]:
    """The samples named in ``wanted`` (all when None); NotFoundError names unknown ones."""
    if wanted is None:
        return samples
    known = {sample["sample_id"] for sample in samples}
    unknown = [sample_id for sample_id in wanted if sample_id not in known]
    if unknown:
        raise NotFoundError(f"unknown LoCoMo sample(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return [sample for sample in samples if sample["sample_id"] in set(wanted)]


def turn_ids_from_samples(samples: Iterable[dict[str, Any]]) -> dict[str, frozenset[str]]:
    """The ``dia_id`` of every turn, per sample."""
    result: dict[str, frozenset[str]] = {}
    for sample in samples:
        ids: set[str] = set()
        for key, turns in sample["conversation"].items():
            if not _SESSION_KEY.fullmatch(key):
                continue
            if not isinstance(turns, list):
                raise InputError(f"LoCoMo sample {sample['sample_id']}: '{key}' is not a list of turns")
            for turn in turns:
                if not isinstance(turn, dict) or not isinstance(turn.get("dia_id"), str):
                    raise InputError(f"LoCoMo sample {sample['sample_id']}: a turn of '{key}' has no 'dia_id'")
                ids.add(turn["dia_id"])
        result[sample["sample_id"]] = frozenset(ids)
    return result


def _answer_text(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{where}: answer must be a string or a number, got {type(value).__name__}")
    return str(value)


def _question(sample_id: str, index: int, item: Any, turn_ids: Collection[str]) -> Question:
    where = f"LoCoMo sample {sample_id}, qa[{index}]"
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected an object, got {type(item).__name__}")
    category = item.get("category")
    if isinstance(category, bool) or not isinstance(category, int) or category not in CATEGORY_NAMES:
        raise InputError(f"{where}: 'category' must be an integer 1-5, got {category!r}")
    if not isinstance(item.get("question"), str):
        raise InputError(f"{where}: missing or non-string 'question'")
    answer = item.get("answer")
    if answer is None and category == 5:
        answer = item.get("adversarial_answer")
    if answer is None:
        raise InputError(f"{where}: missing 'answer'")
    raw_evidence = item.get("evidence", [])
    if not isinstance(raw_evidence, list) or not all(isinstance(e, str) for e in raw_evidence):
        raise InputError(f"{where}: 'evidence' must be a list of strings")
    return Question(
        sample_id=sample_id,
        qa_index=index,
        question=item["question"],
        answer=_answer_text(answer, where),
        category=category,
        evidence=clean_evidence(raw_evidence, turn_ids),
        raw_evidence=tuple(raw_evidence),
    )


def questions_from_samples(
    samples: Iterable[dict[str, Any]], categories: Collection[int] = DEFAULT_CATEGORIES
) -> list[Question]:
    """The questions of already-read samples (see :func:`read_samples`), in file order."""
    samples = list(samples)
    turn_ids = turn_ids_from_samples(samples)
    questions = []
    for sample in samples:
        sample_id = sample["sample_id"]
        for index, item in enumerate(sample["qa"]):
            question = _question(sample_id, index, item, turn_ids[sample_id])
            if question.category in categories:
                questions.append(question)
    return questions


def load_questions(
    path: str | Path,
    samples: list[str] | None = None,
    categories: Collection[int] = DEFAULT_CATEGORIES,
) -> list[Question]:
    """The questions of ``path`` (all samples, or those named), categories 1-4 by default."""
    return questions_from_samples(select_samples(read_samples(path), samples), categories)


def load_turn_ids(path: str | Path, samples: list[str] | None = None) -> dict[str, frozenset[str]]:
    """The ``dia_id`` of every turn of ``path``, per sample."""
    return turn_ids_from_samples(select_samples(read_samples(path), samples))
