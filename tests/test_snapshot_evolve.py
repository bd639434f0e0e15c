"""A snapshot grown by this process's writes searches exactly as a snapshot loaded from the store: after
adds (new sessions, new messages in an old session: windows re-cut), updates, deletes, and another
process's writes, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import SearchResult
from anchormem.store.journal import KEPT_CHANGES, Change, Journal
from anchormem.store.protocol import Store
from tests.fixtures import search_view

pytestmark = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)

QUESTIONS = (
    "Where does the user live now?",
    "What is the name of the dog?",
    "What job does the user have?",
    "What did the user cook with lentils?",
    "When did the user start running?",
)
WORDS = (
    "I moved to Leeds in March and the flat has a small garden",
    "My dog Biscuit loves the beach near the new place",
    "I started a job as a nurse at the city hospital",
    "Cooked a lentil soup with carrots and cumin tonight",
    "Went running by the river, five kilometres this morning",
    "The assistant suggested a training plan for the half marathon",
    "We talked about switching from coffee to matcha",
    "My sister visits in June and we plan to hike in the Dales",
)


def _message(i: int, session: str) -> dict[str, Any]:
    rng = random.Random(i)
    text = f"{rng.choice(WORDS)} ({rng.choice(WORDS).split(' ', 3)[-1]}), note {i}."
    return {
        "role": "user" if i % 2 == 0 else "assistant",
        "content": text,
        "session": session,
        "created_at": f"2026-0{1 + int(session[1:]) % 9}-1{i % 9}T10:00:00",
    }


def _view(result: SearchResult) -> list[tuple[Any, ...]]:
    return search_view(result)


def _settings(location: str) -> Settings:
    return Settings.load(env={}, store=location, embed__backend="hash")


def _fresh(location: str, query: str, **options: Any) -> SearchResult:
    with Memory(_settings(location), embedder=HashEmbedder()) as other:
        return other.search(query, user_id="ana", **options)


class _NoReload:
    """Fails a test that expected the cached snapshot to grow when the scope is loaded again instead."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.loads = 0
        self._real = store.event_matrix

    def __call__(self, scope: Any) -> Any:
        self.loads += 1
        return self._real(scope)


@pytest.fixture
def grown(location: str) -> Iterator[tuple[Memory, _NoReload]]:
    mem = Memory(_settings(location), embedder=HashEmbedder())
    for s in range(3):
        mem.add([_message(10 * s + i, f"s{s}") for i in range(6)], user_id="ana")
    for q in QUESTIONS:  # every derived index built before the writes
        mem.search(q, user_id="ana")
        mem.search(q, user_id="ana", variant="bm25")
    spy = _NoReload(mem.store)
    mem.store.event_matrix = spy  # type: ignore[method-assign]
    try:
        yield mem, spy
    finally:
        mem.close()


def _same_as_fresh(mem: Memory, location: str) -> None:
    for q in QUESTIONS:
        for options in ({}, {"variant": "bm25"}, {"variant": "paper"}, {"k": 3}, {"session": "s1"}):
            assert _view(mem.search(q, user_id="ana", **options)) == _view(_fresh(location, q, **options)), (q, options)


def test_adds_grow_the_snapshot_and_search_as_a_fresh_load(grown: tuple[Memory, _NoReload], location: str) -> None:
    mem, spy = grown
    for i in range(12):  # one message at a time, into the last session, an old one, and a new one
        session = ("s2", "s0", "s3")[i % 3]
        mem.add([_message(100 + i, session)], user_id="ana")
        _same_as_fresh(mem, location)
    assert spy.loads == 0  # every search above grew the cached snapshot


def test_update_and_delete_search_as_a_fresh_load(grown: tuple[Memory, _NoReload], location: str) -> None:
    mem, _ = grown
    turn = mem.turns(user_id="ana")[4]
    mem.update(turn.id, "I now live in Glasgow with my dog Biscuit and work as a teacher", user_id="ana")
    _same_as_fresh(mem, location)
    mem.delete(turn=mem.turns(user_id="ana")[7].id, user_id="ana")
    _same_as_fresh(mem, location)
    mem.delete(session="s1", user_id="ana")
    _same_as_fresh(mem, location)
    mem.add([_message(300, "s2")], user_id="ana")
    _same_as_fresh(mem, location)


def test_another_process_write_is_seen(grown: tuple[Memory, _NoReload], location: str) -> None:
    mem, spy = grown
    with Memory(_settings(location), embedder=HashEmbedder()) as other:
        other.add([_message(400, "s2"), _message(401, "s4")], user_id="ana")
    _same_as_fresh(mem, location)
    assert spy.loads == 0  # not in this process's journal: grown by the store's log of what was added
    mem.add([_message(402, "s4")], user_id="ana")
    _same_as_fresh(mem, location)
    assert spy.loads == 0
    with Memory(_settings(location), embedder=HashEmbedder()) as other:
        other.delete(session="s2", user_id="ana")  # a forget: loaded again, once
    _same_as_fresh(mem, location)
    assert spy.loads == 1


def test_forgotten_words_leave_the_journal(location: str) -> None:
    with Memory(_settings(location), embedder=HashEmbedder()) as mem:
        mem.add([{"role": "user", "content": "My secret code word is pelican", "session": "a"}], user_id="ana")
        mem.add([{"role": "user", "content": "I like tea", "session": "b"}], user_id="ana")
        journal: Journal = mem.store.journal  # type: ignore[attr-defined]
        mem.delete(session="a", user_id="ana")
        scope = mem.users()[0]
        held = [c for _, c in journal._entries[scope]]
        assert held and not any("pelican" in x.text for c in held for x in (*c.contexts, *c.facts, *c.events))
        assert "pelican" not in str(mem.search("code word", user_id="ana").contexts)


def test_the_journal_says_nothing_for_a_gap_or_an_unknown_change(location: str) -> None:
    journal = Journal()
    from anchormem.model import Scope

    scope = Scope("ana")
    journal.record(scope, 1, Change())
    journal.record(scope, 2, Change())
    assert [c.rows for c in journal.since(scope, 0, 2) or []] == [0, 0]
    assert journal.since(scope, 0, 3) is None  # version 3 was written by someone else
    journal.record(scope, 4, Change(unknown=True))
    assert journal.since(scope, 2, 4) is None
    for v in range(5, 6 + KEPT_CHANGES):
        journal.record(scope, v, Change())
    assert journal.since(scope, 4, 5) is None  # let go
    journal.drop([scope])
    assert journal.since(scope, 5 + KEPT_CHANGES, 5 + KEPT_CHANGES) == []
    assert location  # the journal is the store's, whichever store


def test_undated_messages_grow_as_a_fresh_load(location: str) -> None:
    """Without dates, a session's time is its first row: still the same as a fresh load after adds."""
    with Memory(_settings(location), embedder=HashEmbedder()) as mem:
        for s in range(3):
            mem.add(
                [{k: v for k, v in _message(10 * s + i, f"s{s}").items() if k != "created_at"} for i in range(5)],
                user_id="ana",
            )
        for q in QUESTIONS:
            mem.search(q, user_id="ana")
        for i in range(6):
            mem.add(
                [{k: v for k, v in _message(200 + i, ("s1", "s2", "s5")[i % 3]).items() if k != "created_at"}],
                user_id="ana",
            )
            _same_as_fresh(mem, location)


def test_a_snapshot_loaded_before_a_delete_never_comes_back(location: str) -> None:
    """A search that loaded the scope before a delete and finishes after it must not put its snapshot (whose
    lexical index knows the forgotten words) back into the cache, nor have it grown."""
    with Memory(_settings(location), embedder=HashEmbedder()) as mem:
        mem.add([{"role": "user", "content": "My locker code is albatross", "session": "a"}], user_id="ana")
        mem.add([{"role": "user", "content": "I like green tea", "session": "b"}], user_id="ana")
        scope = mem.users()[0]
        cache = mem._snapshots
        stale = cache.get(scope)
        version = mem.store.version(scope)
        mem.delete(session="a", user_id="ana")
        cache._keep(scope, version, stale)  # what the slow search would do now
        fresh = cache.get(scope)
        assert fresh is not stale
        assert not fresh.context_bm25.knows("albatross")
        assert _view(mem.search("locker code", user_id="ana")) == _view(_fresh(location, "locker code"))
