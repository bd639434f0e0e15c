"""An answer cites its turns even when the reader does not follow the format: it is mapped back to the
turns whose words it uses, and ``Answer.citation`` says how the ids came (or that none could be found)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchormem.cli.text import to_text
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory

CHAT = [
    {"id": "t1", "speaker": "Priya", "text": "We are moving to Denver in August for my new job.", "session": "1"},
    {"id": "t2", "speaker": "Tomás", "text": "Denver! Will you take the dog with you?", "session": "1"},
    {"id": "t3", "speaker": "Priya", "text": "Of course, Biscuit comes along. He loves the mountains.", "session": "1"},
    {"id": "t4", "speaker": "Tomás", "text": "I adopted a grey rabbit called Juniper last week.", "session": "2"},
]


def _answer(tmp_path: Path, reply: str) -> object:
    settings = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as mem:
        mem.add(CHAT, user_id="priya")
        return mem.answer("Where is Priya moving to?", user_id="priya", reader=FakeLLM(reply))


def test_a_plain_answer_is_mapped_to_the_turns_holding_its_words(tmp_path: Path) -> None:
    answer = _answer(tmp_path, "Denver")  # what the small real server said: no JSON, no ids
    assert answer.citation == "matched" and answer.cited_turn_ids == ("t1", "t2")
    assert "these turns hold the answer's words" in to_text(answer)


def test_ids_the_reader_was_not_shown_are_replaced_by_matched_ones(tmp_path: Path) -> None:
    answer = _answer(tmp_path, json.dumps({"answer": "to Denver, for a new job", "turn_ids": ["D9:9"]}))
    assert answer.citation == "matched" and answer.cited_turn_ids == ("t1",)


def test_the_readers_own_citations_are_kept(tmp_path: Path) -> None:
    answer = _answer(tmp_path, json.dumps({"answer": "Denver", "turn_ids": ["t1"]}))
    assert answer.citation == "reader" and answer.cited_turn_ids == ("t1",)


@pytest.mark.parametrize("reply", ["The memories do not say.", "Lisbon"])
def test_an_answer_no_turn_supports_says_it_could_not_cite(tmp_path: Path, reply: str) -> None:
    answer = _answer(tmp_path, reply)
    assert answer.citation == "none" and answer.cited_turn_ids == ()
    assert "no turn shown to it holds the answer's words" in to_text(answer)
