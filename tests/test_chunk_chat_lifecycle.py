"""Chat sessions (runs of messages by one speaker) in a live memory: deletes and growth stay exact."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from tests.fixtures import messages

CHAT = [
    ("Emi", "Hey there!"),
    ("Emi", "I took a cooking class today."),
    ("Emi", "We made pasta with ham and peas."),
    ("Emi", "Tomorrow is tiramisu day."),
    ("Lise", "Nice, I went skiing in St. Moritz."),
    ("Lise", "The snow was perfect."),
    ("Emi", "Wow, send photos!"),
    ("Lise", "Will do."),
]


def _everything(mem: Memory, user: str) -> str:
    parts: list[str] = []
    for kind in ("turns", "contexts", "facts", "events"):
        parts.extend(repr(r) for r in mem.records(kind, user_id=user))
    parts.extend(repr(r) for r in mem.export(user_id=user))
    return "\n".join(parts)


def test_deleting_one_message_of_a_merged_turn_removes_exactly_its_words(memory: Memory) -> None:
    memory.add(messages(CHAT, "1"), user_id="u")
    turns = memory.records("turns", user_id="u")
    merged = [c for c in memory.contexts(user_id="u") if turns[2].id in c.turn_ids]
    assert len(merged) == 1 and {t.id for t in turns[:4]} <= set(merged[0].turn_ids)  # one turn, one window
    memory.delete(user_id="u", turn=turns[2].id)
    left = _everything(memory, "u")
    assert "ham and peas" not in left
    for kept in ("cooking class", "tiramisu day", "Hey there!", "St. Moritz"):
        assert kept in left
    remaining = {t.id for t in memory.records("turns", user_id="u")}
    assert remaining == {t.id for t in turns} - {turns[2].id}
    contexts = memory.contexts(user_id="u")
    assert sorted(tid for c in contexts for tid in c.turn_ids) == sorted(remaining)  # each message once
    hit = memory.search("cooking class tiramisu", user_id="u")
    assert turns[1].id in hit.turn_ids and turns[2].id not in hit.turn_ids


def _mem(tmp_path: Path, name: str) -> Memory:
    return Memory(Settings.load(env={}, store=str(tmp_path / name), embed__backend="hash"), embedder=HashEmbedder())


def test_a_chat_that_grows_message_by_message_equals_one_added_at_once(tmp_path: Path) -> None:
    with _mem(tmp_path, "a.db") as once, _mem(tmp_path, "b.db") as steps:
        once.add(messages(CHAT, "1"), user_id="u")
        for n in range(1, len(CHAT) + 1):  # alternating at first, a chat once runs appear
            steps.add(messages(CHAT[:n], "1"), user_id="u")
        for kind in ("turns", "contexts", "facts"):
            assert {r.id for r in once.records(kind, user_id="u")} == {r.id for r in steps.records(kind, user_id="u")}
        assert [c.text for c in once.contexts(user_id="u")] == [c.text for c in steps.contexts(user_id="u")]


def test_the_memory_cuts_chats_as_its_settings_say(tmp_path: Path) -> None:
    paper = Settings.load(env={}, store=str(tmp_path / "p.db"), embed__backend="hash", chunking__chat_chars=0)
    with Memory(paper, embedder=HashEmbedder()) as mem:
        mem.add(messages(CHAT, "1"), user_id="u")
        assert [len(c.turn_ids) for c in mem.contexts(user_id="u")] == [3, 3, 3, 2]  # 3 messages, stride 2
