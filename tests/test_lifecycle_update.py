"""Editing a stored turn: the new words are derived again in place, the old ones leave every copy
(records, search, facts, events, history, the LLM response cache, the SQLite file), on both stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, NotFoundError
from anchormem.llm.cache import CachedLLM
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import Context, Event, Fact, Scope, Turn
from anchormem.store.protocol import Extraction, Store
from anchormem.wire.validation import MAX_TEXT_CHARS
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages

pytestmark = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)

OLD = "Pico loves the beach, we walked along the coast this morning."
NEW = "Pico hates the snow, we stayed inside by the radiator."


def _files(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    return tmp_path / "cache.db"


@pytest.fixture
def mem(location: str, cache_path: Path) -> Iterator[Memory]:
    settings = Settings.load(env={}, store=location, embed__backend="hash")
    llm = CachedLLM(FakeLLM(llm_responder), cache_path)
    with Memory(settings, embedder=HashEmbedder(), llm=llm) as memory:
        yield memory
    llm.close()


def _fill(mem: Memory) -> Turn:
    first = messages(SESSION_1, "1")
    first[2] = {**first[2], "id": "walk-1", "metadata": {"mood": "happy"}}
    mem.add(first, user_id="ana")
    mem.add(messages(SESSION_2, "2"), user_id="ana")
    return next(t for t in mem.turns(user_id="ana") if t.id == "walk-1")


def _reachable(mem: Memory) -> str:
    """Every text a reader of the memory can reach: records, export and history."""
    parts = [repr(r) for kind in ("turns", "contexts", "facts", "events") for r in mem.records(kind, user_id="ana")]
    parts += [repr(r) for r in mem.export(user_id="ana")]
    parts += [repr(h) for h in mem.history(user_id="ana")]
    return "\n".join(parts)


def test_update_rederives_in_place_and_forgets_the_old_words(mem: Memory, location: str, cache_path: Path) -> None:
    before = _fill(mem)
    assert mem.search("Pico beach coast", user_id="ana").contexts  # a cached snapshot that must not survive
    cached = len(mem.llm)  # type: ignore[arg-type]
    version = mem.store.version(Scope("ana"))

    report = mem.update("walk-1", NEW, user_id="ana")

    assert report.updated and report.turn_id == "walk-1"
    assert report.contexts_superseded == 2 and report.facts_superseded > 0 and report.events_superseded > 0
    assert report.contexts_added == 2 and report.facts_added > 0 and report.llm_calls > 0
    assert report.cache_entries_forgotten > 0 and mem.store.version(Scope("ana")) > version
    assert len(mem.llm) < cached + report.llm_calls  # type: ignore[arg-type]
    after = next(t for t in mem.turns(user_id="ana") if t.id == "walk-1")
    assert after.text == NEW
    assert (after.session, after.position, after.speaker, after.timestamp, after.time_given, after.metadata) == (
        before.session,
        before.position,
        before.speaker,
        before.timestamp,
        before.time_given,
        {"mood": "happy"},
    )
    assert len(mem.turns(user_id="ana")) == len(SESSION_1) + len(SESSION_2)

    hits = mem.search("Pico snow radiator", user_id="ana")
    assert "walk-1" in hits.turn_ids and NEW in hits.as_prompt()
    old = mem.search("Pico loves the beach coast", user_id="ana")
    assert old.contexts and not any("beach" in h.context.text for h in old.contexts)
    assert not any("beach" in h.event.text for h in old.events)
    assert any("radiator" in f.text for f in mem.facts(user_id="ana"))
    assert not any("beach" in x.text for x in [*mem.facts(user_id="ana"), *mem.events(user_id="ana")])
    reachable = _reachable(mem)
    assert "beach" not in reachable and "Bach suite" in reachable and NEW in reachable
    covered = {t for c in mem.contexts(user_id="ana") for t in c.turn_ids}
    assert covered == {t.id for t in mem.turns(user_id="ana")}

    history = mem.history(user_id="ana")
    assert [h.op for h in history] == ["add", "add", "update"]
    assert history[-1].detail["target"] == "turn" and history[-1].detail["facts_superseded"] == report.facts_superseded
    assert "walk-1" not in repr(history[-1]) and "radiator" not in repr(history[-1])
    assert b"beach" not in _files(cache_path)
    if location.startswith("postgresql://"):
        return
    raw = _files(Path(location))
    assert b"Pico loves the beach" not in raw and NEW.encode() in raw


def test_update_of_an_unknown_turn_or_with_bad_text_changes_nothing(mem: Memory) -> None:
    _fill(mem)
    version = mem.store.version(Scope("ana"))
    with pytest.raises(NotFoundError, match="no turn 'nope'"):
        mem.update("nope", NEW, user_id="ana")
    with pytest.raises(NotFoundError):
        mem.update("walk-1", NEW, user_id="nobody")
    with pytest.raises(NotFoundError):
        mem.update("walk-1", NEW, user_id="ana", agent_id="helper")  # the turn is in the user's own scope
    for bad in ("", "   ", "a\x00b", "x" * (MAX_TEXT_CHARS + 1)):
        with pytest.raises(InputError, match="text"):
            mem.update("walk-1", bad, user_id="ana")
    with pytest.raises(InputError, match="turn_id"):
        mem.update("a\nb", NEW, user_id="ana")
    assert mem.store.version(Scope("ana")) == version
    assert [h.op for h in mem.history(user_id="ana")] == ["add", "add"]


def test_update_with_the_same_text_is_a_no_op(mem: Memory) -> None:
    _fill(mem)
    version = mem.store.version(Scope("ana"))
    report = mem.update("walk-1", OLD, user_id="ana")
    assert not report.updated and report.contexts_superseded == 0 and report.llm_calls == 0
    assert mem.store.version(Scope("ana")) == version and len(mem.history(user_id="ana")) == 2


def test_add_with_a_stored_id_and_other_text_keeps_the_turn_and_says_so(mem: Memory) -> None:
    _fill(mem)
    again = messages(SESSION_1, "1")
    again[2] = {**again[2], "id": "walk-1", "text": NEW}
    report = mem.add(again, user_id="ana")
    assert report.turns_added == 0
    assert any("'walk-1'" in n and "use update" in n for n in report.notes), report.notes
    assert next(t for t in mem.turns(user_id="ana") if t.id == "walk-1").text == OLD
    same = mem.add(messages(SESSION_1, "1")[:2], user_id="ana")
    assert same.turns_added == 0 and same.notes == []


def _vectors(n: int) -> np.ndarray:
    return np.eye(n, 4, dtype=np.float32)


def test_store_update_turn_takes_what_derives_from_it(location: str) -> None:
    from anchormem.store.factory import open_store

    store: Store = open_store(location)
    a = Scope("a")
    try:
        turns = [Turn(f"t{i}", "1", i, "X", f"words {i}") for i in range(3)]
        store.add_turns(a, turns)
        windows = [Context("c1", "1", 0, ("t0", "t1"), None, "one"), Context("c2", "1", 1, ("t2",), None, "two")]
        store.add_contexts(a, windows)
        facts = [Fact("f1", "c1", "from one"), Fact("f2", "c2", "from two")]
        store.save_extractions(a, [Extraction("c1", facts[:1], _vectors(1)), Extraction("c2", facts[1:], _vectors(1))])
        store.add_events(a, [Event("e1", "both", ("f1", "f2"))], _vectors(1))
        store.set_linked(a, ["f1", "f2"])
        version = store.version(a)

        assert store.update_turn(a, "t1", "new words") == {"turns": 1, "contexts": 1, "facts": 1, "events": 1}
        assert [t.text for t in store.turns(a)] == ["words 0", "new words", "words 2"]
        assert [c.id for c in store.contexts(a)] == ["c2"] and [f.id for f in store.facts(a)] == ["f2"]
        assert store.events(a) == [] and store.unlinked_facts(a) == ["f2"] and store.version(a) > version

        version = store.version(a)
        assert store.update_turn(a, "missing", "x") == {"turns": 0, "contexts": 0, "facts": 0, "events": 0}
        assert store.update_turn(Scope("b"), "t0", "x")["turns"] == 0
        assert store.version(a) == version and store.turns(a)[0].text == "words 0"
    finally:
        store.close()
