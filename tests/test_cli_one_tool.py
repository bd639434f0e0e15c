"""The command line is one tool whether the memory is local or behind ``--url``: every command on a memory
runs through the server or refuses in words, a secret is never echoed, a read never creates a store,
``add --message`` takes a time and a session, and ``delete --all`` asks first (``--yes``, ``--dry-run``)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from anchormem.cli.main import main
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, messages
from tests.live_server import LiveServer, serve

SECRET = "amk_do_not_print_me_0123456789"


@pytest.fixture
def server(memory: Memory) -> Iterator[LiveServer]:
    memory.add([{**m, "id": f"D1:{i}"} for i, m in enumerate(messages(SESSION_1, "1"), 1)], user_id="alice")
    with serve(memory) as live:
        yield live


@pytest.fixture
def base(tmp_path: Path) -> list[str]:
    return ["--store", str(tmp_path / "cli.db"), "--embed-backend", "hash", "--quiet"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- --url everywhere ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--user", "alice"],
        ["list", "turns", "--user", "alice"],
        ["get", "D1:1", "--user", "alice"],
        ["users"],
        ["history", "--user", "alice"],
        ["export", "--user", "alice"],
        ["search", "Pico", "--user", "alice"],
    ],
)
def test_every_read_runs_through_the_server(
    server: LiveServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    code, out, err = run(capsys, *argv, "--json", "--url", server.url, "--api-key", server.alice_key)
    assert code == 0, err
    assert out.strip()
    assert not (tmp_path / "home" / ".anchormem").exists()  # no local store was opened


def test_writes_go_to_the_server_named_in_the_environment(
    server: LiveServer,
    memory: Memory,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANCHORMEM_URL", server.url)
    monkeypatch.setenv("ANCHORMEM_API_KEY", server.alice_key)
    code, out, err = run(capsys, "add", "--message", "I started pottery classes.", "--user", "alice", "--json")
    assert code == 0 and json.loads(out)["turns_added"] == 1, err
    assert any(t.text == "I started pottery classes." for t in memory.turns(user_id="alice"))
    turn = next(t for t in memory.turns(user_id="alice") if t.text == "I started pottery classes.")
    code, _, err = run(capsys, "update", turn.id, "I started ceramics classes.", "--user", "alice")
    assert code == 0, err
    code, _, err = run(capsys, "delete", "--turn", turn.id, "--user", "alice")
    assert code == 0, err
    assert not any("classes" in t.text for t in memory.turns(user_id="alice"))
    assert not (tmp_path / "home" / ".anchormem").exists()  # nothing was written locally


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["import", "x.jsonl"], "import writes a store directly"),
        (["mcp", "--user", "alice"], "anchormem mcp serves a store of this machine"),
        (["serve"], "anchormem serve serves a store of this machine"),
        (["maintenance", "check"], "maintenance works on the store"),
        (["maintenance", "scrub"], "maintenance works on the store"),
        (["add", "f.json", "--facts", "f.jsonl", "--user", "alice"], "--facts need the local store"),
        (["delete", "--session", "1", "--dry-run", "--user", "alice"], "--dry-run reads the store itself"),
    ],
)
def test_what_the_server_cannot_do_is_refused_in_words(
    server: LiveServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], words: str
) -> None:
    (tmp_path / "f.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    code, _, err = run(capsys, *argv, "--url", server.url, "--api-key", server.alice_key)
    assert code == 1 and words in err and err.count("\n") == 1


def test_an_api_key_without_a_server_is_refused(capsys: pytest.CaptureFixture[str], base: list[str]) -> None:
    code, _, err = run(capsys, "add", "--message", "hi", "--user", "u", "--api-key", SECRET, *base)
    assert code == 1 and "--api-key goes with --url" in err and SECRET not in err


# -- secrets -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "--user", "u", "--url", "http://127.0.0.1:9", "--api-key", SECRET, "--bogus"],
        ["stats", "--user", "u", "--url", "http://127.0.0.1:9", f"--api-key={SECRET}", "--bogus"],
        ["frobnicate", "--api-key", SECRET],
        ["search", "x", "--user", "u", "--llm-key", SECRET, "--nope"],
    ],
)
def test_a_usage_error_never_echoes_a_secret(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    _, err = capsys.readouterr()
    assert exited.value.code == 2 and "error" in err and SECRET not in err


def test_a_refused_key_is_not_echoed(server: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "stats", "--user", "alice", "--url", server.url, "--api-key", SECRET)
    assert code == 1 and SECRET not in err and err.startswith("anchormem: error: ")


# -- reads never create a store ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x", "--user", "u"],
        ["answer", "x", "--user", "u"],
        ["stats", "--user", "u"],
        ["list", "turns", "--user", "u"],
        ["get", "D1:1", "--user", "u"],
        ["users"],
        ["history", "--user", "u"],
        ["export", "--user", "u"],
        ["maintenance", "check"],
    ],
)
def test_a_read_of_a_missing_store_is_an_error_and_creates_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    typo = tmp_path / "typo.db"
    code, out, err = run(capsys, *argv, "--store", str(typo), "--embed-backend", "hash")
    assert code == 1 and out == "" and "no store at" in err and "typo.db" in err
    assert list(tmp_path.glob("typo.db*")) == []


# -- add --message -------------------------------------------------------------------------------------------


def test_a_message_gets_now_and_a_session_of_its_own(capsys: pytest.CaptureFixture[str], base: list[str]) -> None:
    path_args = [*base, "--user", "u"]
    assert run(capsys, "add", "--message", "I like green tea.", *path_args)[0] == 0
    code, out, _ = run(capsys, "list", "turns", "--json", *path_args)
    (turn,) = json.loads(out)
    today = datetime.now(UTC).date().isoformat()
    assert turn["session"] == f"message-{today}" and turn["time_given"].startswith(today)
    assert turn["timestamp"] and "unknown" not in turn["timestamp"]
    code, out, _ = run(capsys, "search", "green tea", "--since", today, "--json", *path_args)
    assert code == 0 and turn["id"] in json.loads(out)["turn_ids"]  # time filters see it


def test_a_message_takes_a_time_and_a_session(capsys: pytest.CaptureFixture[str], base: list[str]) -> None:
    argv = ["--time", "2024-05-29T14:13:20Z", "--session", "chat-7", "--user", "u", *base]
    assert run(capsys, "add", "--message", "We booked Lisbon.", *argv)[0] == 0
    (turn,) = json.loads(run(capsys, "list", "turns", "--json", "--user", "u", *base)[1])
    assert turn["session"] == "chat-7" and turn["time_given"] == "2024-05-29T14:13:20Z"
    code, _, err = run(capsys, "add", "--message", "x", "--time", "2024-01-01T25:00", "--user", "u", *base)
    assert code == 1 and "not a valid date" in err
    code, _, err = run(capsys, "add", "chat.json", "--time", "2024-01-01", "--user", "u", *base)
    assert code == 1 and "--time applies to --message" in err


# -- delete --all ----------------------------------------------------------------------------------------------


@pytest.fixture
def stored(capsys: pytest.CaptureFixture[str], tmp_path: Path, base: list[str]) -> list[str]:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages(SESSION_1, "1")))
    assert run(capsys, "add", str(path), "--user", "u", *base)[0] == 0
    return base


def _turns(capsys: pytest.CaptureFixture[str], base: list[str]) -> int:
    code, out, _ = run(capsys, "stats", "--user", "u", "--json", *base)
    return int(json.loads(out)["turns"]) if code == 0 else 0


def test_delete_all_without_a_terminal_needs_yes(
    capsys: pytest.CaptureFixture[str], stored: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, _, err = run(capsys, "delete", "--all", "--user", "u", *stored)
    assert code == 1 and "--yes" in err and _turns(capsys, stored) == len(SESSION_1)
    assert run(capsys, "delete", "--all", "--yes", "--user", "u", *stored)[0] == 0
    assert _turns(capsys, stored) == 0


@pytest.mark.parametrize(("answer", "deleted"), [("no\n", False), ("\n", False), ("yes\n", True)])
def test_delete_all_asks_on_a_terminal(
    capsys: pytest.CaptureFixture[str], stored: list[str], monkeypatch: pytest.MonkeyPatch, answer: str, deleted: bool
) -> None:
    terminal = io.StringIO(answer)
    terminal.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr("sys.stdin", terminal)
    code, _, err = run(capsys, "delete", "--all", "--user", "u", *stored)
    assert "cannot be undone" in err
    assert (code == 0) is deleted and (_turns(capsys, stored) == 0) is deleted


@pytest.mark.parametrize("target", [["--all"], ["--session", "1"]])
def test_delete_dry_run_reports_and_deletes_nothing(
    capsys: pytest.CaptureFixture[str], stored: list[str], target: list[str]
) -> None:
    code, out, err = run(capsys, "delete", *target, "--dry-run", "--json", "--user", "u", *stored)
    report = json.loads(out)
    assert code == 0 and report["dry_run"] is True and report["turns"] == len(SESSION_1), err
    assert _turns(capsys, stored) == len(SESSION_1)
