"""Bad input gets a clear error and never a half-written store; the parsers never crash (hypothesis)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchormem.cli.lifecycle_cmd import read_jsonl
from anchormem.cli.main import main
from anchormem.errors import AnchorMemError, InputError
from anchormem.ingest.sources import load_conversations, parse_messages
from anchormem.lifecycle.portable import parse_records
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, messages

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20,
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "speaker": JSON,
        "role": JSON,
        "text": JSON,
        "content": JSON,
        "timestamp": JSON,
        "session": JSON,
        "id": JSON,
    },
)
FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=JSON | st.lists(MESSAGE, max_size=4))
def test_parse_messages_raises_only_input_errors(data: Any) -> None:
    with contextlib.suppress(InputError):
        parse_messages(data)


@FUZZ
@given(raw=st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_file_readers_raise_only_input_errors(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(raw)
    with contextlib.suppress(InputError):
        load_conversations(path)
    with contextlib.suppress(InputError):
        parse_records(read_jsonl(str(path)))


@FUZZ
@given(
    records=st.lists(
        JSON
        | st.fixed_dictionaries(
            {"type": st.sampled_from(["header", "scope", "turn", "context", "fact", "event", "usage", "history"])},
            optional={
                "format": st.just("anchormem-export"),
                "version": st.just(1),
                "dim": st.integers(-1, 4),
                "id": JSON,
                "user_id": JSON,
                "session": JSON,
                "text": JSON,
                "turn_ids": JSON,
                "vector": JSON,
                "position": JSON,
            },
        ),
        max_size=6,
    )
)
def test_import_parser_raises_only_input_errors(records: list[Any]) -> None:
    with contextlib.suppress(InputError):
        parse_records(records)


def test_locomo_with_wrong_types(tmp_path: Path) -> None:
    for conv in ({"session_1": "x"}, {"session_1": [1]}, {"session_1": [{"speaker": 3, "text": "a"}]}):
        path = tmp_path / "l.json"
        path.write_text(json.dumps([{"sample_id": "s", "conversation": conv}]))
        with pytest.raises(InputError):
            load_conversations(path)


@pytest.mark.parametrize(
    "payload, phrase",
    [
        (b"", "empty"),
        (b"\x00\xff\x10binary", "UTF-8"),
        (b"[]", "empty"),
        (b'{"messages": 3}', "list"),
        (json.dumps([{"speaker": "A", "text": "x" * 1_000_001}]).encode(), "limit"),
        (json.dumps([{"speaker": "A", "text": "a\x00b"}]).encode(), "NUL"),
        (json.dumps([{"speaker": "A", "text": "hi", "timestamp": {"day": 3}}]).encode(), "timestamp"),
        (json.dumps([{"speaker": ["A"], "text": "hi"}]).encode(), "speaker"),
    ],
)
def test_cli_bad_files_give_one_line_and_leave_no_store_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], payload: bytes, phrase: str
) -> None:
    store = tmp_path / "m.db"
    common = ["--store", str(store), "--embed-backend", "hash", "-q", "--user", "u"]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(messages(SESSION_1)))
    assert main(["add", str(good), *common]) == 0
    before = store.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(payload)
    capsys.readouterr()
    assert main(["add", str(bad), *common]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and phrase in err
    assert main(["stats", *common[:-2], "--user", "u", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == len(SESSION_1)
    assert len(before) > 0


def test_unknown_users_are_clear(memory: Memory) -> None:
    for call in (
        lambda: memory.history(user_id="ghost"),
        lambda: list(memory.export(user_id="ghost")),
        lambda: memory.delete(user_id="ghost", all=True),
        lambda: memory.delete(user_id="ghost", turn="x"),
    ):
        with pytest.raises(AnchorMemError, match="ghost"):
            call()
