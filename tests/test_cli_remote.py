"""``anchormem search --url`` (or ``ANCHORMEM_URL``) asks a running server: the same result as a local
search, without opening the store or loading a model in the CLI's process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.cli.main import main
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, messages
from tests.live_server import LiveServer, serve


@pytest.fixture
def server(memory: Memory) -> Iterator[LiveServer]:
    memory.add(messages(SESSION_1, "1"), user_id="alice")
    with serve(memory) as live:
        yield live


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_through_the_server_equals_the_local_search(
    server: LiveServer, memory: Memory, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = _run(
        capsys, "search", "Ana's dog", "--user", "alice", "--json", "--url", server.url, "--api-key", server.alice_key
    )
    assert code == 0, err
    local = memory.search("Ana's dog", user_id="alice")
    remote = json.loads(out)
    assert remote["turn_ids"] == list(local.turn_ids) and remote["contexts"]
    assert not (tmp_path / "home" / ".anchormem").exists()  # no local store was opened


def test_the_environment_names_the_server(
    server: LiveServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANCHORMEM_URL", server.url)
    monkeypatch.setenv("ANCHORMEM_API_KEY", server.alice_key)
    code, out, err = _run(capsys, "search", "Ana's dog", "--user", "alice")
    assert code == 0 and "── #1 context" in out, err
    code, _, err = _run(capsys, "search", "x", "--user", "bob")
    assert code == 1 and err.count("\n") == 1  # the key is alice's: the server refuses, in one line


def test_local_store_options_with_a_url_are_refused(server: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "search", "x", "--user", "alice", "--url", server.url, "--store", "other.db")
    assert code == 1 and "--store" in err and "server's are used" in err
