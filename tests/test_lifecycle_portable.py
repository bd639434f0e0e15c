"""Export to JSONL and import into an empty store: an exact round trip; bad exports are refused whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, SESSION_2, messages


def _mem(path: Path) -> Memory:
    return Memory(Settings.load(env={}, store=str(path), embed__backend="hash"), embedder=HashEmbedder())


def _content(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] != "history"]


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=40)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sessions=st.lists(
        st.lists(st.tuples(st.sampled_from(["Ana", "Ben"]), TEXT.filter(str.strip)), min_size=1, max_size=5),
        min_size=1,
        max_size=3,
    ),
    agent=st.sampled_from([None, "helper"]),
)
def test_property_round_trip_is_exact(
    tmp_path_factory: pytest.TempPathFactory, sessions: list[list[tuple[str, str]]], agent: str | None
) -> None:
    folder = tmp_path_factory.mktemp("rt")
    with _mem(folder / "a.db") as a, _mem(folder / "b.db") as b:
        for i, turns in enumerate(sessions, 1):
            a.add(messages(turns, str(i)), user_id="u", agent_id=agent)
        exported = [json.loads(json.dumps(r)) for r in a.export(user_id="u")]
        report = b.import_records(exported)
        assert report.turns == sum(len(s) for s in sessions)
        again = list(b.export(user_id="u"))
        assert _content(again) == _content(exported)
        assert [h for h in again if h["type"] == "history"][:-1] == [h for h in exported if h["type"] == "history"]
        query = sessions[0][0][1]
        assert a.search(query, user_id="u", agent_id=agent) == b.search(query, user_id="u", agent_id=agent)


def test_import_refuses_a_non_empty_scope_and_bad_records(tmp_path: Path) -> None:
    with _mem(tmp_path / "a.db") as a:
        a.add(messages(SESSION_1, "1"), user_id="u")
        records = list(a.export(user_id="u"))
        with pytest.raises(InputError, match="already holds"):
            a.import_records(records)
    with _mem(tmp_path / "b.db") as b:
        bad = [dict(r) for r in records]
        bad[-3] = {**bad[-3], "context_id": "c-missing"} if bad[-3]["type"] == "fact" else {"type": "bogus"}
        for broken in (
            bad,
            records[1:],
            [],
            [records[0], {"type": "turn"}],
            [
                *records[:2],
                {
                    "type": "fact",
                    "id": "f",
                    "context_id": "c",
                    "text": "x",
                    "source": "llm",
                    "linked": True,
                    "vector": "!",
                },
            ],
        ):
            with pytest.raises(InputError):
                b.import_records(broken)
        assert b.users() == []  # nothing half-written


def test_cli_export_import_delete_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps(messages(SESSION_1, "1") + messages(SESSION_2, "2")))
    common = ["--store", str(tmp_path / "a.db"), "--embed-backend", "hash", "-q"]
    assert main(["add", str(conv), "--user", "u", *common]) == 0
    capsys.readouterr()
    assert main(["export", "--user", "u", *common]) == 0
    dump = tmp_path / "u.jsonl"
    dump.write_text(capsys.readouterr().out)
    other = ["--store", str(tmp_path / "b.db"), "--embed-backend", "hash"]
    assert main(["import", str(dump), *other]) == 0
    assert main(["delete", "--user", "u", "--session", "1", *other]) == 0
    assert main(["history", "--user", "u", *other]) == 0
    out = capsys.readouterr().out
    assert "import" in out and "delete" in out
    assert main(["import", str(dump), *other]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds" in err
    garbage = tmp_path / "bad.jsonl"
    garbage.write_bytes(b'{"type": "header"}\n\xff\xfe\n')
    assert main(["import", str(garbage), *other]) == 1
    assert main(["history", "--user", "nobody", *other]) == 1
