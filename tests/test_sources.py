"""Input parsing: LoCoMo files and generic message lists, and clear errors for bad input."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchormem.errors import InputError
from anchormem.ingest.sources import load_conversations, parse_messages
from tests.fixtures import locomo_sample, write_locomo


def test_locomo_keeps_ids_dates_and_captions(tmp_path: Path) -> None:
    (conv,) = load_conversations(write_locomo(tmp_path / "c.json"), sample="conv-1")
    assert conv.name == "conv-1" and conv.sessions == ["1", "2"]
    first = conv.turns[0]
    assert (first.id, first.session, first.timestamp) == ("D1:1", "1", "1:56 pm on 8 May, 2023")
    assert conv.turns[2].image_caption == "a photo of a dog on a beach"


def test_unknown_sample_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no sample 'conv-9'.*conv-1"):
        load_conversations(write_locomo(tmp_path / "c.json"), sample="conv-9")


def test_generic_messages_with_role_content_and_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(m)
            for m in [
                {"role": "user", "content": "hi", "timestamp": "2024-01-02T10:00:00Z"},
                {"role": "assistant", "content": "hello", "session": 2, "id": "x-1"},
                {"speaker": "user", "text": "again", "session": 2},
            ]
        )
    )
    (conv,) = load_conversations(path)
    assert [t.speaker for t in conv.turns] == ["user", "assistant", "user"]
    assert conv.turns[0].timestamp == "10:00 am on 2 January, 2024 UTC"  # one human form for readers
    assert conv.turns[0].time_given == "2024-01-02T10:00:00Z"  # and the original kept, never "now"
    assert conv.turns[1].id == "x-1" and conv.turns[1].session == "2" and conv.turns[2].position == 1
    (again,) = load_conversations(path)
    assert [t.id for t in again.turns] == [t.id for t in conv.turns]  # generated ids are stable


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is empty"),
        ("{not json", "neither JSON nor JSONL"),
        ('{"a": 1}\n{broken', "line 2 is not valid JSON"),
        ("[]", "message list is empty"),
        ('[{"speaker": "a"}]', "missing field 'text' or 'content'"),
        ('[{"speaker": 3, "text": "x"}]', "'speaker' must be a string"),
        ('[{"speaker": "a", "text": "  "}]', "'text' is empty"),
        ('[{"speaker": "a", "text": "x", "session": [1]}]', "'session' must be a string or number"),
        ('[{"speaker": "a", "text": "x", "id": "1"}, {"speaker": "a", "text": "y", "id": "1"}]', "duplicate id"),
        ('"just a string"', "expected a list of messages"),
    ],
)
def test_bad_files_get_specific_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_conversations(path)


def test_binary_huge_and_missing_files(tmp_path: Path) -> None:
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8"):
        load_conversations(binary)
    huge = tmp_path / "h.json"
    huge.write_text(json.dumps([{"speaker": "a", "text": "x" * 1_000_001}]))
    with pytest.raises(InputError, match="limit"):
        load_conversations(huge)
    with pytest.raises(InputError, match="not found"):
        load_conversations(tmp_path / "missing.json")
    nul = tmp_path / "n.json"
    nul.write_text(json.dumps([{"speaker": "a", "text": "x\x00y"}]))
    with pytest.raises(InputError, match="NUL"):
        load_conversations(nul)


def test_malformed_locomo_session(tmp_path: Path) -> None:
    sample = locomo_sample()
    sample["conversation"]["session_2"] = "oops"
    with pytest.raises(InputError, match="session_2 must be a list"):
        load_conversations(write_locomo(tmp_path / "c.json", [sample]), sample="conv-1")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_json)
def test_message_parser_fuzz_never_raises_anything_but_input_error(data: object) -> None:
    with contextlib.suppress(InputError):
        parse_messages(data)
