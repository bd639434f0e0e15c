"""The LoCoMo runner end to end on a tiny LoCoMo-shaped file, with the hash embedder and fake LLMs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError, LLMUnavailableError
from anchormem.eval.runner import EvalConfig, run_locomo
from anchormem.llm.fake import FakeLLM
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import locomo_sample, write_locomo

RECORD_KEYS = {
    "sample_id",
    "qa_index",
    "question",
    "category",
    "retrieved_dia_ids",
    "n_contexts",
    "context_chars",
    "evidence",
    "recall",
}

QA = [
    {"question": "What is the name of Ana's dog?", "answer": "Pico", "evidence": ["D1:1"], "category": 4},
    {"question": "When did Ben play his first recital?", "answer": "Saturday", "evidence": ["D2:1"], "category": 2},
    {
        "question": "What did Ana paint and who got it?",
        "answer": "a portrait of Pico, her grandmother",
        "evidence": ["D1:5", "D2:2"],
        "category": 1,
    },
    {"question": "Would Ben enjoy a Bach concert?", "answer": "yes", "evidence": ["D2:3"], "category": 3},
    {"question": "What instrument does Ben play?", "answer": "cello", "evidence": [], "category": 4},
    {"question": "What is Ben's cat called?", "adversarial_answer": "none", "evidence": [], "category": 5},
]


def locomo_file(tmp_path: Path) -> Path:
    samples = []
    for sid in ("conv-1", "conv-2"):
        sample = locomo_sample(sid)
        sample["qa"] = QA
        samples.append(sample)
    return write_locomo(tmp_path / "locomo.json", samples)


def hash_memory(settings: Settings) -> Memory:
    return Memory(settings, embedder=HashEmbedder())


def config(tmp_path: Path, **kw: Any) -> EvalConfig:
    base: dict[str, Any] = {
        "data": locomo_file(tmp_path),
        "out": tmp_path / "run",
        "answer": False,
        "settings": Settings.load(env={}, embed__backend="hash"),
    }
    return EvalConfig(**{**base, **kw})


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def responder(messages: list[Message]) -> str:
    if "Grade the generated answer" in messages[-1]["content"]:
        return json.dumps({"label": "CORRECT"})
    return llm_responder(messages)


def test_retrieval_only_writes_the_documented_files(tmp_path: Path) -> None:
    result = run_locomo(config(tmp_path), memory_factory=hash_memory)
    out = tmp_path / "run"
    for name in (
        "memory.db",
        "run.json",
        "retrieval.jsonl",
        "usage.json",
        "report.md",
        "report.json",
        "recall_by_category.png",
    ):
        assert (out / name).exists(), name
    assert not (out / "f1_by_category.png").exists()
    records = lines(out / "retrieval.jsonl")
    assert len(records) == 10 and result.asked == 10  # 5 questions of categories 1-4 per sample
    for record in records:
        assert set(record) == RECORD_KEYS
        assert isinstance(record["retrieved_dia_ids"], list) and record["n_contexts"] >= 1
        assert record["context_chars"] > 0
        assert record["recall"] is None if not record["evidence"] else 0.0 <= record["recall"] <= 1.0
    assert {r["sample_id"] for r in records} == {"conv-1", "conv-2"}
    report = json.loads((out / "report.json").read_text())
    assert report["answers"] is None
    assert report["recall"]["Average"]["no_evidence"] == 2
    assert report["recall"]["Average"]["scored"] == 8
    assert set(report["aeg"]) == {"conv-1", "conv-2"}
    assert report["info"]["path"]["fact_sources"] == {"offline": report["aeg"]["conv-1"]["facts"] * 2}


def test_samples_option_selects_conversations(tmp_path: Path) -> None:
    result = run_locomo(config(tmp_path, samples=("conv-2",)), memory_factory=hash_memory)
    assert result.asked == 5
    assert {r["sample_id"] for r in lines(tmp_path / "run" / "retrieval.jsonl")} == {"conv-2"}


def test_resume_asks_only_the_missing_questions(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    run_locomo(cfg, memory_factory=hash_memory)
    path = tmp_path / "run" / "retrieval.jsonl"
    kept = path.read_text(encoding="utf-8").splitlines()[:7]
    path.write_text("\n".join(kept) + "\n" + '{"sample_id": "conv-2", "qa_in', encoding="utf-8")  # torn write
    result = run_locomo(cfg, memory_factory=hash_memory)
    assert (result.asked, result.skipped) == (3, 7)
    records = lines(path)
    assert len(records) == 10
    assert len({(r["sample_id"], r["qa_index"]) for r in records}) == 10
    again = run_locomo(cfg, memory_factory=hash_memory)
    assert again.asked == 0 and len(lines(path)) == 10
    first = json.loads((tmp_path / "run" / "memory.ingest.json").read_text())
    assert {s: a.ingest_seconds for s, a in again.report.aeg.items()} == {
        s: v["ingest_seconds"] for s, v in first.items()
    }, "a resumed run reports the build of the first run"


def test_interrupted_answering_resumes_without_duplicates(tmp_path: Path) -> None:
    calls = {"n": 0}

    def dying(messages: list[Message]) -> str:
        calls["n"] += 1
        if calls["n"] > 4:
            raise LLMUnavailableError("endpoint gone")
        return responder(messages)

    cfg = config(tmp_path, answer=True)
    with pytest.raises(LLMUnavailableError):
        run_locomo(cfg, memory_factory=hash_memory, reader=FakeLLM(dying))
    path = tmp_path / "run" / "retrieval.jsonl"
    first = lines(path)
    assert 0 < len(first) < 10
    result = run_locomo(cfg, memory_factory=hash_memory, reader=FakeLLM(responder))
    assert result.asked == 10 - len(first)
    records = lines(path)
    assert len({(r["sample_id"], r["qa_index"]) for r in records}) == len(records) == 10
    assert all("answer" in r and "judge" in r for r in records)


def test_fake_llm_extracts_answers_and_judges_with_the_cost_table_filled(tmp_path: Path) -> None:
    llm = FakeLLM(responder)
    judge = FakeLLM(responder, model="fake-judge")
    cfg = config(tmp_path, answer=True, tau=0.2)
    result = run_locomo(
        cfg, memory_factory=lambda s: Memory(s, embedder=HashEmbedder(), llm=llm), reader=llm, judge=judge
    )
    report = result.report
    assert report.score is not None
    assert report.score.overall.count == 10 and report.score.overall.judge_accuracy == 1.0
    for phase in ("extraction", "answering", "judging", "retrieval"):
        assert report.cost[phase].calls > 0, phase
    assert report.cost["extraction"].prompt_tokens > 0
    assert report.cost["judging"].calls == 10  # judged by its own LLM, accounted apart
    assert report.cost["answering"].calls == 10
    assert judge.calls == 10
    out = tmp_path / "run"
    assert (out / "f1_by_category.png").exists()
    records = lines(out / "retrieval.jsonl")
    assert all(r["answer"] == "Pico" and r["judge"] is True for r in records)
    markdown = (out / "report.md").read_text()
    assert "fake-llm" in markdown and "fake-judge" in markdown and "| Single Hop F1 |" in markdown
    assert report.info["path"]["fact_sources"] == {"llm": sum(s.facts for s in report.aeg.values())}


def test_no_context_variant_shows_the_reader_facts(tmp_path: Path) -> None:
    reader = FakeLLM(responder)
    run_locomo(config(tmp_path, answer=True, variant="no-context"), memory_factory=hash_memory, reader=reader)
    answering = [r for r in reader.requests if "Question:" in r[-1]["content"] and "Grade" not in r[-1]["content"]]
    assert answering
    prompt = answering[0][-1]["content"]
    assert "\n  - Ana: " in prompt or "\n  - Ben: " in prompt  # anchor facts (fenced as data), not the turn lines
    assert " said, " not in prompt


def test_refuses_to_resume_with_other_ingest_parameters(tmp_path: Path) -> None:
    run_locomo(config(tmp_path), memory_factory=hash_memory)
    with pytest.raises(ConfigError, match="tau"):
        run_locomo(config(tmp_path, tau=0.9), memory_factory=hash_memory)
    with pytest.raises(ConfigError, match="k: 10 then, 20 now"):
        run_locomo(config(tmp_path, k=20), memory_factory=hash_memory)


def test_unknown_variant_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown variant"):
        run_locomo(config(tmp_path, variant="nope"), memory_factory=hash_memory)


def test_answering_without_a_reader_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--no-answer"):
        run_locomo(config(tmp_path, answer=True), memory_factory=hash_memory)
