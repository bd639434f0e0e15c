"""A delete that comes while an add of the same user is still working must not let the add write back
what the delete removed (facts, events, cached LLM responses of deleted words, a ghost memory)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.cache import CachedLLM
from anchormem.llm.fake import FakeLLM
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages


def _bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


class DeleteMidway:
    """An LLM responder that, on the first extraction call matching ``marker``, starts ``delete`` in
    another thread (as a second request to the same service would) and gives it a second to run."""

    def __init__(self, marker: str, **delete: Any) -> None:
        self.marker, self.delete = marker, delete
        self.memory: Memory | None = None
        self.thread: threading.Thread | None = None
        self.errors: list[BaseException] = []

    def __call__(self, msgs: list[Message]) -> str:
        content = msgs[-1]["content"]
        if self.thread is None and "Excerpt:" in content and self.marker in content:
            self.thread = threading.Thread(target=self._run)
            self.thread.start()
            self.thread.join(timeout=1.0)  # without serialisation the delete completes here, mid-extraction
        return llm_responder(msgs)

    def _run(self) -> None:
        assert self.memory is not None
        try:
            self.memory.delete(**self.delete)
        except BaseException as exc:
            self.errors.append(exc)


def test_delete_all_during_an_add_leaves_nothing_behind(tmp_path: Path) -> None:
    cfg = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    responder = DeleteMidway("Pico", user_id="ana", all=True)
    llm = CachedLLM(FakeLLM(responder), tmp_path / "cache.db")
    with Memory(cfg, embedder=HashEmbedder(), llm=llm) as mem:
        responder.memory = mem
        mem.add(messages(SESSION_1, "1"), user_id="ana")
        assert responder.thread is not None
        responder.thread.join(timeout=15)
        assert not responder.errors
        assert mem.users() == []  # no ghost memory made of facts whose words are gone
    llm.close()
    assert b"Pico loves the beach" not in _bytes(cfg.store_path)
    assert b"Pico loves the beach" not in _bytes(tmp_path / "cache.db")


def test_delete_session_during_an_add_leaves_no_orphans(tmp_path: Path) -> None:
    cfg = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    responder = DeleteMidway("Pico loves the beach", user_id="ana", session="1")
    with Memory(cfg, embedder=HashEmbedder(), llm=FakeLLM(responder)) as mem:
        responder.memory = mem
        mem.add(messages(SESSION_2, "2"), user_id="ana")
        mem.add(messages(SESSION_1, "1"), user_id="ana")
        assert responder.thread is not None
        responder.thread.join(timeout=15)
        assert not responder.errors
        turns = {t.id for t in mem.turns(user_id="ana")}
        contexts = mem.contexts(user_id="ana")
        facts = mem.facts(user_id="ana")
        events = mem.events(user_id="ana")
        assert all(t.session == "2" for t in mem.turns(user_id="ana"))
        assert all(set(c.turn_ids) <= turns for c in contexts)
        assert all(f.context_id in {c.id for c in contexts} for f in facts)
        assert all(set(e.fact_ids) <= {f.id for f in facts} for e in events)
        assert "Pico loves the beach" not in repr(facts) + repr(events)


def test_a_delete_by_another_memory_during_extraction_leaves_no_cached_answer(tmp_path: Path) -> None:
    """Another process (here a second ``Memory`` on the same file, so no shared writer lock) deletes a
    session while the add waits for the LLM: the answer that arrives afterwards is cached by the adder,
    and must be forgotten once the store refuses its facts."""
    cfg = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    other = Memory(cfg, embedder=HashEmbedder())  # no LLM: forgets from the cache file next to the store
    responder = DeleteMidway("Pico loves the beach", user_id="ana", session="1")
    responder.memory = other
    llm = CachedLLM(FakeLLM(responder), cfg.cache_path)
    with Memory(cfg, embedder=HashEmbedder(), llm=llm) as mem:
        mem.add(messages(SESSION_2, "2"), user_id="ana")
        mem.add(messages(SESSION_1, "1"), user_id="ana")
        assert responder.thread is not None
        responder.thread.join(timeout=15)
        assert not responder.errors
        assert all(t.session == "2" for t in mem.turns(user_id="ana"))
    other.close()
    llm.close()
    assert b"Pico loves the beach" not in _bytes(cfg.cache_path)
