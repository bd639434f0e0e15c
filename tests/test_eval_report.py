"""The report's shape (Table 1, recall, cost, AEG, provenance) and the files it is built from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.errors import InputError
from anchormem.eval.evidence import clean_evidence
from anchormem.eval.qa import Question
from anchormem.eval.report import AEGStats, ResultsFile, build_report, code_version, load_usage, save_usage
from anchormem.model import Usage

TURNS = frozenset({"D1:1", "D1:2", "D2:1"})


def question(index: int, category: int, evidence: list[str], answer: str = "Pico") -> Question:
    return Question(
        sample_id="conv-1",
        qa_index=index,
        question=f"q{index}?",
        answer=answer,
        category=category,
        evidence=clean_evidence(evidence, TURNS),
        raw_evidence=tuple(evidence),
    )


QUESTIONS = [question(0, 4, ["D1:1"]), question(1, 1, ["D1:2", "D2:1"]), question(2, 2, []), question(3, 3, ["D2:1"])]


def record(q: Question, retrieved: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "sample_id": q.sample_id,
        "qa_index": q.qa_index,
        "question": q.question,
        "category": q.category,
        "retrieved_dia_ids": retrieved,
        "n_contexts": 2,
        "context_chars": 100,
        **extra,
    }


INFO = {
    "variant": "anchormem",
    "data": "/data/locomo.json",
    "samples": ["conv-1"],
    "ingest": {"tau": 0.85, "n_neighbors": 3},
    "query": {"k": 10},
    "version": {"anchormem": "0.1.0", "git": "abc1234"},
    "path": {
        "fact_sources": {"pack": 12},
        "event_sources": {"pack": 3},
        "models": {"extraction": None, "reader": "qwen", "judge": "judge-model"},
    },
}
COST = {
    "extraction": Usage(calls=3, prompt_tokens=3000, completion_tokens=600, call_seconds=2.0),
    "retrieval": Usage(calls=4, call_seconds=0.04),
    "answering": Usage(calls=4, prompt_tokens=8000, call_seconds=4.0),
}
AEG = {"conv-1": AEGStats(facts=12, events=3, clusters_discarded=5, clusters_kept=3, ingest_seconds=1.5)}


def test_retrieval_only_report_has_recall_cost_aeg_and_path() -> None:
    records = [record(QUESTIONS[0], ["D1:1"]), record(QUESTIONS[1], ["D1:2"]), record(QUESTIONS[2], ["D1:1"])]
    report = build_report(QUESTIONS, records, [q.key for q in QUESTIONS], COST, AEG, INFO)
    assert report.score is None and report.not_asked == 1
    assert list(report.recall) == ["Single Hop", "Multi Hop", "Open Domain", "Temporal", "Average"]
    assert report.recall["Single Hop"].recall == 1.0
    assert report.recall["Multi Hop"].recall == 0.5
    assert report.recall["Open Domain"].scored == 0  # not asked yet
    assert report.recall["Average"].recall == 0.75 and report.recall["Average"].no_evidence == 1
    md = report.to_markdown()
    assert "## Answers" not in md
    assert "| Recall | 100.00 | 50.00 | - | - | 75.00 |" in md
    assert "Questions without gold evidence (left out of recall): 1." in md
    assert "Questions not asked yet" in md
    assert "| Offline | Fact extraction | 3.00 | 0.60 | 3.60 | 3 |" in md
    assert "| Online | Answer generation | 8.00 | 0.00 | 8.00 | 4 | 0 | 0 | 4.00 | 1.000 |" in md
    assert "| Online | Judging |" in md
    assert "| Facts | 12 | 12.0 |" in md and "| Clusters discarded | 5 | 5.0 |" in md
    assert (
        "- Path: facts 12 from the precomputed pack; events 3 from the precomputed pack; reader qwen; "
        "judge judge-model." in md
    )
    assert "anchormem 0.1.0, git abc1234" in md
    data = report.to_dict()
    json.dumps(data)
    assert data["answers"] is None and data["cost"]["extraction"]["calls"] == 3


def test_answers_add_table_1() -> None:
    records = [
        record(QUESTIONS[0], ["D1:1"], answer="Pico", judge=True),
        record(QUESTIONS[1], [], answer="nothing", judge=False),
        record(QUESTIONS[2], [], answer="Pico"),
    ]
    report = build_report(QUESTIONS, records, [q.key for q in QUESTIONS], COST, AEG, INFO)
    assert report.score is not None
    assert report.score.overall.count == 3 and report.score.overall.judged == 2
    assert report.score.overall.judge_accuracy == 0.5
    md = report.to_markdown()
    assert "| Method | Single Hop F1 | Single Hop BLEU | Single Hop ACC |" in md
    assert "| anchormem | 100.00 | 100.00 | 100.00 |" in md
    assert report.to_dict()["answers"]["overall"]["count"] == 3


def test_results_file_repairs_a_torn_last_line_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "retrieval.jsonl"
    torn = '{"sample_id": "conv-1", "qa'
    path.write_text(json.dumps(record(QUESTIONS[0], [])) + "\n" + torn, encoding="utf-8")
    results = ResultsFile(path)
    assert results.keys() == {("conv-1", 0)}
    assert path.read_text(encoding="utf-8").endswith("}\n")
    with results.appender() as append:
        append(record(QUESTIONS[1], ["D1:2"]))
    assert results.keys() == {("conv-1", 0), ("conv-1", 1)}


def test_results_file_rejects_a_broken_line_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "retrieval.jsonl"
    path.write_text("not json\n" + json.dumps(record(QUESTIONS[0], [])) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        ResultsFile(path).load()


def test_usage_adds_up_over_restarts(tmp_path: Path) -> None:
    path = tmp_path / "usage.json"
    assert load_usage(path) == {}
    save_usage(path, {}, {"answering": Usage(calls=2, prompt_tokens=10)})
    more = {"answering": Usage(calls=1, prompt_tokens=5), "judging": Usage(calls=1)}
    save_usage(path, load_usage(path), more)
    usage = load_usage(path)
    assert usage["answering"].calls == 3 and usage["answering"].prompt_tokens == 15
    assert usage["judging"].calls == 1


def test_code_version_without_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    version = code_version()
    assert version["anchormem"] and version["git"] is None
