"""The answers benchmark on the LLM path: ``--memory-batch`` builds each chat's memory with a model's facts and
events answered through batch files, stopping while requests wait (recorded answers; hash embedder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from tests.batch_answers import answer
from tests.maya import SESSIONS, recorded


def maya_chat() -> dict[str, Any]:
    conv: dict[str, Any] = {"speaker_a": "Maya", "speaker_b": "assistant"}
    for n, turns in enumerate(SESSIONS, start=1):
        conv[f"session_{n}_date_time"] = turns[0][1]
        conv[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": t} for i, (who, _, t) in enumerate(turns, 1)
        ]
    qa = [
        {
            "question": "Where does Maya live now?",
            "question_named": "Where does Maya live now?",
            "answer": "Carabanchel",
            "answer_terms": ["Carabanchel"],
            "evidence": ["D3:1"],
            "kind": "current",
        }
    ]
    return {"sample_id": "maya", "user_name": "Maya", "conversation": conv, "qa": qa}


def proxy(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["eval", "proxy", *args, "--embed-backend", "hash", "--systems", "default,message"]) == 0
    return capsys.readouterr().out


def test_the_proxy_runs_on_memories_a_model_built_through_batch_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "chat.json"
    data.write_text(json.dumps([maya_chat()]), encoding="utf-8")
    where = tmp_path / "memory"
    base = ["--data", str(data), "--memory-batch", "recorded-model", "--memory-dir", str(where)]
    results: list[str] = []
    rounds = 0
    said = proxy(capsys, *base)
    while "wait for their answers" in said:
        rounds += 1
        assert rounds <= 3, said
        sent = where / f"memory-round-{rounds}.jsonl"
        assert sent.exists() and str(sent) in said
        answer(sent, tmp_path / f"results-{rounds}.jsonl", recorded)
        results += ["--memory-results", str(tmp_path / f"results-{rounds}.jsonl")]
        said = proxy(capsys, *base, *results)
    assert rounds >= 1 and "default" in said and "message" in said  # the proxy table, once nothing waits
    assert not (where / f"memory-round-{rounds + 1}.jsonl").exists()
    with Memory(Settings(store=str(where / "memory-scratch.db")), embedder=HashEmbedder()) as built:
        facts = built.facts(user_id="maya~named")
        assert facts and {f.source for f in facts} == {"llm"}  # the model's facts, no provisional anchor left
        assert "Maya moved to Carabanchel in September 2024." in {f.text for f in facts}


def test_memory_batch_options_need_their_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "chat.json"
    data.write_text(json.dumps([maya_chat()]), encoding="utf-8")
    assert main(["eval", "proxy", "--data", str(data), "--memory-dir", str(tmp_path), "--embed-backend", "hash"]) == 1
    assert "--memory-batch" in capsys.readouterr().err
    assert main(["eval", "proxy", "--data", str(data), "--memory-batch", "m", "--embed-backend", "hash"]) == 1
    assert "--memory-dir" in capsys.readouterr().err
