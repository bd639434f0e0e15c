"""Score a file of answers against LoCoMo's gold answers (the paper's Table 1 metrics).

The answers file is JSONL, one record per question::

    {"sample_id": "conv-26", "qa_index": 0, "answer": "7 May 2023", "judge": true}

``judge`` (optional) is an LLM judge's verdict; when records carry it, the report adds the
judge accuracy. Every mean — per category and overall — is over questions (micro average),
as the AnchorMem authors' evaluation computes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from anchormem.errors import InputError
from anchormem.eval.metrics import bleu1, f1_score
from anchormem.eval.qa import (
    CATEGORY_NAMES,
    DEFAULT_CATEGORIES,
    Question,
    questions_from_samples,
    read_samples,
    select_samples,
)

__all__ = [
    "AnswerRecord",
    "CategoryScore",
    "QuestionScore",
    "ScoreReport",
    "format_markdown",
    "read_answers",
    "score_answers",
    "score_records",
]

# Column order of the paper's Table 1.
TABLE_ORDER: tuple[tuple[int, str], ...] = ((4, "Single Hop"), (1, "Multi Hop"), (3, "Open Domain"), (2, "Temporal"))


@dataclass(frozen=True)
class AnswerRecord:
    """One line of an answers file."""

    sample_id: str
    qa_index: int
    answer: str
    judge: bool | None = None


@dataclass(frozen=True)
class QuestionScore:
    sample_id: str
    qa_index: int
    category: int
    f1: float
    bleu1: float
    judge: bool | None


@dataclass(frozen=True)
class CategoryScore:
    """Means over the answered questions of one category (or of all of them)."""

    name: str
    count: int
    f1: float | None  # None when count == 0
    bleu1: float | None
    judge_accuracy: float | None  # None when no record carried a verdict
    judged: int


@dataclass(frozen=True)
class ScoreReport:
    categories: Mapping[int, CategoryScore]  # by LoCoMo category number
    overall: CategoryScore
    questions: tuple[QuestionScore, ...]
    missing: tuple[tuple[str, int], ...]  # (sample_id, qa_index) of questions without an answer
    ignored: int  # records of questions outside the scored samples/categories

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": asdict(self.overall),
            "categories": {str(cat): asdict(score) for cat, score in self.categories.items()},
            "missing": [list(key) for key in self.missing],
            "ignored": self.ignored,
            "questions": [asdict(q) for q in self.questions],
        }


def _record(raw: Any, where: str) -> AnswerRecord:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    sample_id, qa_index, answer = raw.get("sample_id"), raw.get("qa_index"), raw.get("answer")
    if not isinstance(sample_id, str):
        raise InputError(f"{where}: missing or non-string 'sample_id'")
    if isinstance(qa_index, bool) or not isinstance(qa_index, int):
        raise InputError(f"{where}: missing or non-integer 'qa_index'")
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise InputError(f"{where}: 'answer' must be a string, got {type(answer).__name__}")
    judge = raw.get("judge")
    if judge is not None and not isinstance(judge, bool):
        raise InputError(f"{where}: 'judge' must be true or false, got {judge!r}")
    return AnswerRecord(sample_id=sample_id, qa_index=qa_index, answer=str(answer), judge=judge)


def read_answers(path: str | Path) -> list[AnswerRecord]:
    """The records of a JSONL answers file (blank lines are skipped)."""
    records = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                where = f"answers file {path}, line {number}"
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{where}: not valid JSON: {exc}") from exc
                records.append(_record(raw, where))
    except OSError as exc:
        raise InputError(f"cannot read answers file {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"answers file {path} is not UTF-8: {exc}") from exc
    return records


def _summary(name: str, scores: list[QuestionScore]) -> CategoryScore:
    verdicts = [s.judge for s in scores if s.judge is not None]
    count = len(scores)
    return CategoryScore(
        name=name,
        count=count,
        f1=sum(s.f1 for s in scores) / count if count else None,
        bleu1=sum(s.bleu1 for s in scores) / count if count else None,
        judge_accuracy=sum(verdicts) / len(verdicts) if verdicts else None,
        judged=len(verdicts),
    )


def score_records(
    questions: Iterable[Question], records: Iterable[AnswerRecord], all_keys: Iterable[tuple[str, int]] = ()
) -> ScoreReport:
    """Score ``records`` against ``questions``.

    ``all_keys`` are the (sample_id, qa_index) of every question in the data, scored or not: a
    record naming one of them outside ``questions`` is ignored (and counted); a record naming
    anything else is an error, as is a second record for the same question.
    """
    questions = list(questions)
    by_key = {q.key: q for q in questions}
    known = set(all_keys) | set(by_key)
    answers: dict[tuple[str, int], AnswerRecord] = {}
    ignored = 0
    for record in records:
        key = (record.sample_id, record.qa_index)
        if key not in known:
            raise InputError(f"answer for an unknown question: sample {record.sample_id!r}, qa_index {record.qa_index}")
        if key in answers:
            raise InputError(f"two answers for sample {record.sample_id!r}, qa_index {record.qa_index}")
        if key not in by_key:
            ignored += 1
            continue
        answers[key] = record
    scored: list[QuestionScore] = []
    missing: list[tuple[str, int]] = []
    for question in questions:
        answer = answers.get(question.key)
        if answer is None:
            missing.append(question.key)
            continue
        scored.append(
            QuestionScore(
                sample_id=question.sample_id,
                qa_index=question.qa_index,
                category=question.category,
                f1=f1_score(answer.answer, question.answer),
                bleu1=bleu1(answer.answer, question.answer),
                judge=answer.judge,
            )
        )
    categories = {
        cat: _summary(CATEGORY_NAMES[cat], [s for s in scored if s.category == cat])
        for cat in sorted({q.category for q in questions})
    }
    return ScoreReport(
        categories=categories,
        overall=_summary("overall", scored),
        questions=tuple(scored),
        missing=tuple(missing),
        ignored=ignored,
    )


def score_answers(data_path: str | Path, answers_path: str | Path, samples: list[str] | None = None) -> ScoreReport:
    """F1, BLEU-1 (and judge accuracy) of an answers file, per category 1-4 and overall."""
    raw_samples = read_samples(data_path)
    every_question = questions_from_samples(raw_samples, categories=tuple(CATEGORY_NAMES))
    scored_samples = {sample["sample_id"] for sample in select_samples(raw_samples, samples)}
    questions = [q for q in every_question if q.sample_id in scored_samples and q.category in DEFAULT_CATEGORIES]
    return score_records(questions, read_answers(answers_path), all_keys=(q.key for q in every_question))


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def format_markdown(report: ScoreReport, label: str = "anchormem") -> str:
    """The report as a markdown table laid out like the paper's Table 1 (percentages)."""
    groups = [(name, report.categories.get(cat)) for cat, name in TABLE_ORDER] + [("Average", report.overall)]
    header = ["Method"] + [f"{name} {metric}" for name, _ in groups for metric in ("F1", "BLEU", "ACC")]
    row = [label]
    for _, score in groups:
        if score is None:
            row += ["-", "-", "-"]
        else:
            row += [_pct(score.f1), _pct(score.bleu1), _pct(score.judge_accuracy)]
    counts = ", ".join(f"{name} {score.count if score else 0}" for name, score in groups)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        "| " + " | ".join(row) + " |",
        "",
        f"Questions scored: {counts}.",
    ]
    if report.missing:
        lines.append(f"Questions without an answer (not scored): {len(report.missing)}.")
    if report.ignored:
        lines.append(f"Answers ignored (outside the scored samples or categories): {report.ignored}.")
    return "\n".join(lines) + "\n"
