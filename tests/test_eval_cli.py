"""``anchormem eval locomo`` and ``anchormem eval sweep`` through the command line (hash embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.fake_server import FakeOpenAIServer

from anchormem.cli.main import main
from tests.test_eval_runner import RECORD_KEYS, locomo_file, responder


def test_locomo_retrieval_only_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = locomo_file(tmp_path), tmp_path / "run"
    rc = main(
        [
            "eval",
            "locomo",
            "--data",
            str(data),
            "--out",
            str(out),
            "--no-answer",
            "--samples",
            "conv-1",
            "--embed-backend",
            "hash",
            "--k",
            "3",
            "--json",
        ]
    )
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["asked"] == 5 and report["resumed"] == 0
    assert report["info"]["query"]["k"] == 3 and report["info"]["query"]["max_contexts"] == 3
    records = [json.loads(line) for line in (out / "retrieval.jsonl").read_text().splitlines()]
    assert all(set(r) == RECORD_KEYS and r["n_contexts"] <= 3 for r in records)
    assert (out / "report.md").read_text().startswith("# LoCoMo evaluation: anchormem")


def test_locomo_text_output_and_refused_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = locomo_file(tmp_path), tmp_path / "run"
    args = [
        "eval",
        "locomo",
        "--data",
        str(data),
        "--out",
        str(out),
        "--no-answer",
        "--embed-backend",
        "hash",
        "--quiet",
    ]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "## Evidence recall (%)" in text and "10 questions asked now, 0 already done" in text
    assert main([*args, "--tau", "0.9"]) == 1
    err = capsys.readouterr().err
    assert "other ingest parameters" in err and "tau: 0.85 then, 0.9 now" in err


def test_locomo_answering_needs_an_llm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "eval",
            "locomo",
            "--data",
            str(locomo_file(tmp_path)),
            "--out",
            str(tmp_path / "run"),
            "--embed-backend",
            "hash",
        ]
    )
    assert rc == 1
    assert "--no-answer" in capsys.readouterr().err


def test_chunks_variant_runs_naive_rag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "eval",
            "locomo",
            "--data",
            str(locomo_file(tmp_path)),
            "--out",
            str(tmp_path / "run"),
            "--no-answer",
            "--embed-backend",
            "hash",
            "--variant",
            "chunks",
            "--quiet",
        ]
    )
    assert rc == 0
    lines = [json.loads(x) for x in (tmp_path / "run" / "retrieval.jsonl").read_text().splitlines()]
    assert lines and all(0 < line["n_contexts"] <= 10 for line in lines)


def test_reader_without_a_model_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "eval",
            "locomo",
            "--data",
            str(locomo_file(tmp_path)),
            "--out",
            str(tmp_path / "run"),
            "--embed-backend",
            "hash",
            "--reader-url",
            "http://127.0.0.1:9/v1",
        ]
    )
    assert rc == 1
    assert "--reader-model" in capsys.readouterr().err


def test_sweep_grid_shares_one_memory_per_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = locomo_file(tmp_path), tmp_path / "sweep"
    rc = main(
        [
            "eval",
            "sweep",
            "--data",
            str(data),
            "--out",
            str(out),
            "--no-answer",
            "--embed-backend",
            "hash",
            "--tau",
            "0.3,0.9",
            "--n",
            "3",
            "--k",
            "2,5",
            "--samples",
            "conv-1",
            "--quiet",
        ]
    )
    assert rc == 0
    assert "# LoCoMo sweep" in capsys.readouterr().out
    table = json.loads((out / "sweep.json").read_text())
    assert [(r["tau"], r["n"], r["k"]) for r in table["rows"]] == [(0.3, 3, 2), (0.3, 3, 5), (0.9, 3, 2), (0.9, 3, 5)]
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["tau0.30-n3", "tau0.90-n3"]
    cell = out / "tau0.30-n3"
    assert (cell / "memory.db").exists() and not (cell / "k2" / "memory.db").exists()
    assert (cell / "k5" / "retrieval.jsonl").exists()
    for tau in (0.3, 0.9):  # the runs that reuse a cell's memory report the build that made it
        built = {(r["clusters_discarded"], r["events"]) for r in table["rows"] if r["tau"] == tau}
        assert len(built) == 1, built
    assert next(r for r in table["rows"] if r["tau"] == 0.3)["clusters_discarded"] > 0
    assert (out / "sweep.md").exists() and (out / "recall_vs_k.png").exists()
    md = (out / "sweep.md").read_text()
    assert "| tau | N | k | Single Hop recall |" in md


def test_sweep_rejects_bad_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "sweep", "--data", "x", "--out", str(tmp_path), "--k", "ten"])
    assert "comma-separated numbers" in capsys.readouterr().err


def test_live_llm_path_with_a_separate_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = locomo_file(tmp_path), tmp_path / "run"
    with FakeOpenAIServer(reply=lambda body: responder(body["messages"])) as server:
        args = [
            "eval",
            "locomo",
            "--data",
            str(data),
            "--out",
            str(out),
            "--samples",
            "conv-1",
            "--embed-backend",
            "hash",
            "--llm-url",
            server.base_url,
            "--llm-model",
            "extractor",
            "--judge-model",
            "judge-m",
            "--tau",
            "0.2",
            "--json",
        ]
        assert main(args) == 0
        report = json.loads(capsys.readouterr().out)
        models = {body["model"] for body in server.requests}
        assert models == {"extractor", "judge-m"}
        assert report["info"]["path"]["models"] == {
            "extraction": "extractor",
            "reader": "extractor",
            "judge": "judge-m",
        }
        assert report["cost"]["judging"]["calls"] == 5
        assert report["answers"]["overall"]["judge_accuracy"] == 1.0
        assert (out / "llm-cache.db").exists()
        seen = len(server.requests)
        assert main(args) == 0  # everything is done: nothing is asked again
        assert len(server.requests) == seen
        assert json.loads(capsys.readouterr().out)["asked"] == 0


def test_live_llm_extracts_facts_on_a_fresh_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = locomo_file(tmp_path), tmp_path / "run"
    with FakeOpenAIServer(reply=lambda body: responder(body["messages"])) as server:
        assert (
            main(
                [
                    "eval",
                    "locomo",
                    "--data",
                    str(data),
                    "--out",
                    str(out),
                    "--samples",
                    "conv-1",
                    "--embed-backend",
                    "hash",
                    "--llm-url",
                    server.base_url,
                    "--llm-model",
                    "extractor",
                    "--no-answer",
                    "--json",
                ]
            )
            == 0
        )
    report = json.loads(capsys.readouterr().out)
    assert set(report["info"]["path"]["fact_sources"]) == {"llm"}
    assert report["cost"]["extraction"]["prompt_tokens"] > 0
