"""The message model: what ``Memory.add`` takes, how messages become turns, and the id rule that makes
re-sending safe (a retry or a re-sent window of recent messages stores nothing twice)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError
from anchormem.eval.locomo import add_all, add_locomo
from anchormem.ingest.messages import as_messages, parse_messages
from anchormem.ingest.sources import Conversation
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, locomo_sample, write_locomo


def chat(*texts: str, session: str = "1") -> list[dict[str, str]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t, "session": session} for i, t in enumerate(texts)
    ]


def test_resending_messages_without_ids_stores_nothing_twice(memory: Memory) -> None:
    first = memory.add(chat("I got a puppy.", "What is its name?"), user_id="u")
    again = memory.add(chat("I got a puppy.", "What is its name?"), user_id="u")
    assert (first.turns_added, again.turns_added) == (2, 0)
    assert [t.text for t in memory.turns(user_id="u")] == ["I got a puppy.", "What is its name?"]


def test_a_resent_window_of_recent_messages_adds_only_the_new_ones(memory: Memory) -> None:
    texts = ["I got a puppy.", "What is its name?", "Pico.", "Cute!", "He likes the beach."]
    memory.add(chat(*texts[:3]), user_id="u")
    window = [{"role": m["role"], "content": m["content"]} for m in chat(*texts)][1:]  # drops the oldest
    report = memory.add(window, user_id="u")
    assert report.turns_added == 2
    turns = memory.turns(user_id="u")
    assert [t.text for t in turns] == texts
    assert [t.position for t in turns] == [0, 1, 2, 3, 4], "new turns continue after those stored"


def test_two_different_messages_are_both_kept(memory: Memory) -> None:
    assert memory.add("I like tea.", user_id="u").turns_added == 1
    assert memory.add("I like coffee.", user_id="u").turns_added == 1
    assert (
        memory.add({"role": "user", "content": "I like tea.", "created_at": 1717000000}, user_id="u").turns_added == 1
    )
    turns = memory.turns(user_id="u")
    assert [t.text for t in turns] == ["I like tea.", "I like coffee.", "I like tea."]
    assert [t.position for t in turns] == [0, 1, 2] and len({t.id for t in turns}) == 3


def test_the_same_words_twice_in_one_call_are_two_turns_and_ids_ignore_position(memory: Memory) -> None:
    turns = parse_messages(chat("yes", "ok", "yes"))
    assert len({t.id for t in turns}) == 3
    alone = parse_messages([{"role": "user", "content": "yes"}])
    assert alone[0].id == turns[0].id, "the id comes from the content, not the place in the list"
    later = parse_messages([{"role": "user", "content": "hi"}, {"role": "user", "content": "yes"}])
    assert later[1].id == turns[0].id


def test_a_string_is_one_user_message_never_a_file(memory: Memory, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    memory.add(str(path), user_id="u")
    (turn,) = memory.turns(user_id="u")
    assert (turn.speaker, turn.text) == ("user", str(path))
    assert add_locomo(memory, path, user_id="file", sample="conv-1").turns_added == len(
        locomo_sample()["conversation"]["session_1"]
    ) + len(locomo_sample()["conversation"]["session_2"])
    reports = add_all(memory, str(path), user_id="all")  # add_all only reads files: a string path is fine
    assert list(reports) == ["conv-1"]


def test_add_takes_one_message_a_list_a_conversation_a_sample_or_messages_object(memory: Memory) -> None:
    memory.add({"speaker": "Ana", "text": "My dog is Pico."}, user_id="one")
    memory.add({"messages": [{"speaker": "Ana", "text": "My dog is Pico."}]}, user_id="wrapped")
    memory.add(
        Conversation("c", tuple(parse_messages([{"speaker": "Ana", "text": "My dog is Pico."}]))), user_id="conv"
    )
    memory.add(locomo_sample(), user_id="sample")
    assert memory.turns(user_id="one") == memory.turns(user_id="wrapped") == memory.turns(user_id="conv")
    assert memory.turns(user_id="sample")[0].id == "D1:1"
    with pytest.raises(InputError, match="cannot add a int: pass a list of messages"):
        memory.add(42, user_id="u")  # type: ignore[arg-type]


def test_name_is_the_speaker_and_the_role_stays_in_metadata() -> None:
    (turn,) = parse_messages([{"role": "user", "name": "Maya", "content": "hi", "metadata": {"x": 1}}])
    assert turn.speaker == "Maya" and turn.metadata == {"x": 1, "role": "user"}
    (own,) = parse_messages([{"role": "user", "name": "Maya", "content": "hi", "metadata": {"role": "coach"}}])
    assert own.metadata == {"role": "coach"}, "the caller's own metadata is never overwritten"
    (plain,) = parse_messages([{"role": "user", "content": "hi"}])
    assert plain.speaker == "user" and plain.metadata is None


def test_content_parts_and_assistant_messages_without_content() -> None:
    parts = [
        {"type": "text", "text": "Look:"},
        {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
        {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}},
        {"type": "file", "file": {"filename": "notes.txt"}},
        {"type": "file", "file": {"file_id": "file-1"}},
        {"type": "refusal", "refusal": "No."},
        {"type": "video"},
    ]
    (turn,) = parse_messages([{"role": "user", "content": parts}])
    assert turn.text == "Look:\n[image]\n[audio]\n[file: notes.txt]\n[file]\nNo.\n[video]"
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]
    tool, refusal = parse_messages(
        [{"role": "assistant", "content": None, "tool_calls": calls}, {"role": "assistant", "refusal": "I can't."}]
    )
    assert tool.text == "[tool call: get_weather]" and refusal.text == "I can't."


def test_times_are_shown_in_one_form_and_kept_as_given() -> None:
    given = [1717000000, 1717000000000, "1717000000", "2024-05-29T16:26:40Z", "29.12.2023, 22:42"]
    turns = parse_messages([{"role": "user", "content": str(i), "created_at": v} for i, v in enumerate(given)])
    assert [t.timestamp for t in turns] == ["4:26 pm on 29 May, 2024 UTC"] * 4 + ["29.12.2023, 22:42"]
    assert [t.time_given for t in turns] == [str(v) for v in given]
    (legacy,) = parse_messages([{"speaker": "a", "text": "x", "date": "8 May, 2023"}])
    assert legacy.timestamp == "8 May, 2023"


def test_unknown_keys_are_ignored_and_metadata_is_only_what_was_given() -> None:
    (turn,) = parse_messages([{"role": "tool", "content": "22 C", "tool_call_id": "c1", "extra": {"a": 1}}])
    assert turn.speaker == "tool" and turn.metadata is None


def test_as_messages_shapes() -> None:
    assert as_messages("hi") == [{"role": "user", "content": "hi"}]
    assert as_messages({"role": "user", "content": "hi"}) == [{"role": "user", "content": "hi"}]
    assert as_messages(({"a": 1},)) == [{"a": 1}]
    with pytest.raises(InputError, match="cannot add a bytes"):
        as_messages(b"hi")


def test_files_keep_working_with_openai_messages(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": [{"type": "text", "text": t}], "created_at": 1717000000} for _, t in SESSION_1]
    path.write_text("\n".join(json.dumps(m) for m in lines), encoding="utf-8")
    assert memory.add(path, user_id="u").turns_added == len(SESSION_1)
    assert memory.add(path, user_id="u").turns_added == 0


@pytest.fixture
def memory_at(location: str) -> Iterator[Memory]:
    """A Memory on the store of the test's ``location`` (SQLite file or PostgreSQL database)."""
    with Memory(Settings.load(env={}, store=location, embed__backend="hash"), embedder=HashEmbedder()) as mem:
        yield mem


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_retries_windows_and_metadata_on_each_store(memory_at: Memory) -> None:
    texts = ["I got a puppy.", "What is its name?", "Pico.", "Cute!"]
    sent = [
        {"role": "user", "name": "Maya", "content": texts[0], "created_at": 1717000000, "metadata": {"tags": ["pet"]}},
        *chat(*texts[1:]),
    ]
    assert memory_at.add(sent[:3], user_id="u").turns_added == 3
    assert memory_at.add(sent[:3], user_id="u").turns_added == 0
    assert memory_at.add(sent[1:], user_id="u").turns_added == 1
    turns = memory_at.turns(user_id="u")
    assert [(t.text, t.position) for t in turns] == [(t, i) for i, t in enumerate(texts)]
    assert turns[0].metadata == {"tags": ["pet"], "role": "user"} and turns[0].time_given == "1717000000"
    assert turns[0].speaker == "Maya" and turns[0].timestamp == "4:26 pm on 29 May, 2024 UTC"


def test_empty_text_parts_leave_no_blank_lines() -> None:
    parts = [
        {"type": "text", "text": ""},
        {"type": "image_url", "image_url": {"url": "x"}},
        {"type": "text", "text": "hi"},
    ]
    (turn,) = parse_messages([{"role": "user", "content": parts, "user_id": None}])
    assert turn.text == "[image]\nhi"
