"""The command line: commands, JSON output, one-line errors with non-zero exits."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from anchormem.cli.main import build_parser, main
from tests.fixtures import locomo_sample, write_locomo


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def base(tmp_path: Path) -> list[str]:
    return ["--store", str(tmp_path / "cli.db"), "--embed-backend", "hash", "--quiet"]


def test_add_search_stats_list_get(capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str]) -> None:
    path = write_locomo(tmp_path / "c.json")
    code, out, _ = run(capsys, "add", str(path), "--user", "u", "--sample", "conv-1", "--json", *base)
    assert code == 0 and json.loads(out)["contexts_added"] == 5
    code, out, _ = run(capsys, "search", "name of Ana's dog", "--user", "u", "--json", *base)
    result = json.loads(out)
    assert code == 0 and "D1:1" in result["turn_ids"] and result["contexts"][0]["context"]["turn_ids"]
    assert [h["rank"] for h in result["contexts"]] == list(range(1, len(result["contexts"]) + 1))
    scores = [h["score"] for h in result["contexts"]]  # in the selection's order: a repeat may score higher, rank lower
    assert scores[0] == max(scores), "the selection takes the best-scored context first"
    assert sorted(result["reading_order"]) == list(range(len(result["contexts"])))
    assert all("latest" in h and "newer" in h for h in result["contexts"])
    code, out, _ = run(capsys, "search", "name of Ana's dog", "--user", "u", *base)
    assert code == 0 and "DATE: 1:56 pm on 8 May, 2023" in out and "turns D1:" in out and "── #1 context" in out
    code, out, _ = run(capsys, "stats", "--user", "u", *base)
    assert code == 0 and "contexts 5" in out
    code, out, _ = run(capsys, "list", "contexts", "--user", "u", "--json", *base)
    contexts = json.loads(out)
    code, out, _ = run(capsys, "get", contexts[0]["id"], "--user", "u", *base)
    assert code == 0 and contexts[0]["id"] in out
    code, out, _ = run(capsys, "users", *base)
    assert out.strip() == "u"


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--user", "ghost"],
        ["add", "/no/such/file.json", "--user", "u"],
        ["answer", "what?", "--user", "ghost"],
        ["get", "c-123", "--user", "ghost"],
    ],
)
def test_errors_are_one_line_with_non_zero_exit(
    capsys: pytest.CaptureFixture[str], base: list[str], argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv, *base)
    assert code == 1 and out == ""
    assert err.startswith("anchormem: error: ") and err.count("\n") == 1


def test_search_of_a_user_with_no_memory_is_empty(capsys: pytest.CaptureFixture[str], base: list[str]) -> None:
    assert run(capsys, "add", "--message", "hello", "--user", "someone", *base)[0] == 0  # the store exists
    code, out, err = run(capsys, "search", "x", "--user", "ghost", "--json", *base)
    assert code == 0 and err == ""
    assert json.loads(out) == {"query": "x", "contexts": [], "events": [], "reading_order": [], "turn_ids": []}
    code, out, _ = run(capsys, "search", "x", "--user", "ghost", *base)
    assert code == 0 and "0 contexts" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--user", "u", "--k", "0"],
        ["search", "x", "--user", "u", "--max-contexts", "0"],
        ["search", "x", "--user", "u", "--max-contexts", "-3"],
        ["search", "x", "--user", "u", "--k", "ten"],
        ["answer", "x?", "--user", "u", "--k", "-1"],
        ["history", "--user", "u", "--limit", "0"],
        ["eval", "locomo", "--data", "d.json", "--out", "o", "--k", "0"],
        ["eval", "locomo", "--data", "d.json", "--out", "o", "--max-contexts", "0"],
        ["eval", "locomo", "--data", "d.json", "--out", "o", "--n-neighbors", "0"],
        ["eval", "sweep", "--data", "d.json", "--out", "o", "--k", "5,0"],
        ["serve", "--keys", "k.json", "--jobs", "0"],
        ["serve", "--keys", "k.json", "--max-body", "-1"],
    ],
)
def test_counts_below_one_are_usage_errors(
    capsys: pytest.CaptureFixture[str], base: list[str], argv: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*argv, *base])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    option = next(a for a in argv if a.startswith("--") and a not in ("--user", "--data", "--out", "--keys"))
    (line,) = [ln for ln in err.splitlines() if "error:" in ln]
    assert f"argument {option}: " in line and ("must be 1 or more" in line or "whole number" in line), err


def test_answer_without_llm_explains_configuration(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str]
) -> None:
    run(capsys, "add", str(write_locomo(tmp_path / "c.json")), "--user", "u", "--sample", "conv-1", *base)
    code, _, err = run(capsys, "answer", "Who is Pico?", "--user", "u", *base)
    assert code == 1 and "ANCHORMEM_LLM_BASE_URL" in err


def test_all_samples(capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str]) -> None:
    path = write_locomo(tmp_path / "c.json", [locomo_sample("a"), locomo_sample("b")])
    code, out, _ = run(capsys, "add", str(path), "--user", "u", "--all-samples", "--json", *base)
    assert code == 0 and set(json.loads(out)) == {"a", "b"}
    code, out, _ = run(capsys, "stats", "--user", "u", "--run", "b", "--json", *base)
    assert json.loads(out)["turns"] == 9


def test_demo_runs_offline(capsys: pytest.CaptureFixture[str], base: list[str]) -> None:
    code, out, _ = run(capsys, "demo", *base)
    assert code == 0
    assert "offline (no LLM configured)" in out and "=== What is Tomás allergic to?" in out
    assert "turns D3:" in out and "DATE: 8:05 pm on 2 May, 2024" in out


def test_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        assert p.format_help().startswith("usage: anchormem " + name)


def test_update_replaces_a_turns_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(capsys, "add", str(write_locomo(tmp_path / "c.json")), "--user", "u", "--sample", "conv-1", *base)
    code, out, _ = run(capsys, "update", "D1:1", "I adopted a cat called Miso.", "--user", "u", "--json", *base)
    report = json.loads(out)
    assert code == 0 and report["updated"] is True and report["turn_id"] == "D1:1" and report["contexts_added"] > 0
    code, out, _ = run(capsys, "get", "D1:1", "--user", "u", "--json", *base)
    assert json.loads(out)["text"] == "I adopted a cat called Miso."
    monkeypatch.setattr("sys.stdin", io.StringIO("I adopted a cat called Miso."))
    code, out, _ = run(capsys, "update", "D1:1", "-", "--user", "u", "--json", *base)
    assert code == 0 and json.loads(out)["updated"] is False  # the same text from stdin: nothing to change
    code, _, err = run(capsys, "update", "D9:9", "x", "--user", "u", *base)
    assert code == 1 and err.startswith("anchormem: error: no turn 'D9:9'")
    code, _, err = run(capsys, "update", "D1:1", " ", "--user", "u", *base)
    assert code == 1 and "'text' is empty" in err


def test_search_narrowed_by_scope_metadata_session_and_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str]
) -> None:
    def write(name: str, rows: list[dict[str, object]]) -> str:
        path = tmp_path / name
        path.write_text(json.dumps(rows), encoding="utf-8")
        return str(path)

    mine = write(
        "mine.json",
        [
            {"role": "user", "content": "Budget review at work.", "session": "1", "metadata": {"topic": "work"}},
            {"role": "user", "content": "A budget for climbing.", "session": "2", "created_at": 1717000000},
        ],
    )
    coach = write("coach.json", [{"role": "user", "content": "The coach's budget plan.", "session": "3"}])
    assert run(capsys, "add", mine, "--user", "u", *base)[0] == 0
    assert run(capsys, "add", coach, "--user", "u", "--agent", "coach", *base)[0] == 0
    assert run(capsys, "add", coach, "--agent", "solo", *base)[0] == 0

    def sessions(*extra: str) -> list[str]:
        code, out, err = run(capsys, "search", "budget", "--json", *extra, *base)
        assert code == 0, err
        return sorted(h["context"]["session"] for h in json.loads(out)["contexts"])

    assert sessions("--user", "u") == ["1", "2", "3"]
    assert sessions("--user", "u", "--exact-scope") == ["1", "2"]
    assert sessions("--user", "u", "--filter", "topic=work") == ["1"]
    assert sessions("--user", "u", "--filter", "topic=work", "--filter", "missing=1") == []
    assert sessions("--user", "u", "--session", "2") == ["2"]
    assert sessions("--user", "u", "--since", "2024-05-01", "--until", "1717000000") == ["2"]
    assert sessions("--agent", "solo") == ["3"]
    code, out, _ = run(capsys, "search", "budget", "--user", "u", *base)
    assert code == 0 and " in u / coach  session 3" in out and " in u  session 1" in out
    code, out, _ = run(capsys, "users", *base)
    assert "(agent) solo" in out.splitlines()
    code, out, _ = run(capsys, "search", "budget", "--agent", "solo", "--json", *base)
    assert json.loads(out)["contexts"][0]["scope"] == {"user_id": "", "agent_id": "solo", "run_id": None}
    code, _, err = run(capsys, "search", "budget", *base)
    assert code == 1 and "user_id or agent_id is required" in err
    code, _, err = run(capsys, "search", "budget", "--user", "u", "--since", "someday", *base)
    assert code == 1 and "since" in err
    with pytest.raises(SystemExit) as exit_info:
        run(capsys, "search", "budget", "--user", "u", "--filter", "no-equals-sign", *base)
    assert exit_info.value.code == 2
