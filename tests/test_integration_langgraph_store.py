"""AnchorMemStore against what LangGraph expects of a BaseStore (the behaviour its InMemoryStore has and its
store tests check, as far as it applies to a memory): put/get round trips, overwrite and delete by key,
namespaces kept apart, search by query with scores and provenance, filters, offsets and limits,
list_namespaces with prefix/suffix/max_depth, and the async variants."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import BaseStore, Item, SearchItem
from langgraph.store.memory import InMemoryStore

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.integrations.langgraph_store import AnchorMemStore, namespace_of, scope_of
from anchormem.memory import Memory
from anchormem.model import Scope


@pytest.fixture
def store(tmp_path: Path) -> AnchorMemStore:
    memory = Memory(Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash"), embedder=HashEmbedder())
    return AnchorMemStore(memory)


def test_is_a_langgraph_store(store: AnchorMemStore) -> None:
    assert isinstance(store, BaseStore)


def test_namespaces_map_to_scopes_and_back() -> None:
    assert scope_of(("alice",)) == Scope("alice")
    assert scope_of(("alice", "coach")) == Scope("alice", "coach")
    assert scope_of(("alice", "coach", "2024", "may")) == Scope("alice", "coach", "2024/may")
    for ns in [("alice",), ("alice", "coach"), ("alice", "coach", "2024", "may")]:
        assert namespace_of(scope_of(ns)) == ns


@pytest.mark.parametrize("make", [AnchorMemStore, None], ids=["anchormem", "langgraph-inmemory"])
def test_put_get_overwrite_delete_as_langgraph_does(store: AnchorMemStore, make: object) -> None:
    """The same calls on LangGraph's own InMemoryStore and on ours give the same answers."""
    s: BaseStore = store if make is not None else InMemoryStore()
    ns = ("alice", "prefs")
    assert s.get(ns, "food") is None
    s.put(ns, "food", {"content": "Alice loves spicy ramen", "kind": "preference"})
    item = s.get(ns, "food")
    assert isinstance(item, Item) and item.key == "food" and item.namespace == ns
    assert item.value == {"content": "Alice loves spicy ramen", "kind": "preference"}
    assert item.created_at.tzinfo is not None and item.updated_at >= item.created_at
    s.put(ns, "food", {"content": "Alice now prefers mild curry", "kind": "preference"})
    again = s.get(ns, "food")
    assert again is not None and again.value["content"] == "Alice now prefers mild curry"
    assert again.updated_at >= item.updated_at
    assert s.get(("bob", "prefs"), "food") is None  # namespaces are apart
    s.delete(ns, "food")
    assert s.get(ns, "food") is None


def test_an_overwrite_forgets_the_old_words(store: AnchorMemStore) -> None:
    ns = ("alice",)
    store.put(ns, "city", {"content": "Alice lives in Hamburg"})
    store.put(ns, "city", {"content": "Alice lives in Leipzig"})
    texts = [t.text for t in store.memory.turns(user_id="alice")]
    assert texts == ["Alice lives in Leipzig"]
    assert not any("Hamburg" in f.text for f in store.memory.facts(user_id="alice"))


def test_search_by_query_returns_scored_items_with_provenance(store: AnchorMemStore) -> None:
    ns = ("alice", "notes")
    store.put(ns, "pet", {"content": "Alice adopted a grey cat called Miso", "topic": "pets"})
    store.put(ns, "job", {"content": "Alice started a new job as a nurse in Porto", "topic": "work"})
    store.put(("bob", "notes"), "pet", {"content": "Bob adopted a parrot called Kiwi", "topic": "pets"})
    found = store.search(("alice",), query="What is the name of Alice's cat?", limit=5)
    assert found and all(isinstance(i, SearchItem) for i in found)
    assert found[0].key == "pet" and found[0].namespace == ns and found[0].score is not None
    assert [i.score for i in found] == sorted((i.score for i in found), reverse=True)
    provenance = found[0].value["anchormem"]
    assert "Miso" in provenance["text"] and provenance["turn_ids"] == ["lg:pet"] and provenance["rank"] >= 1
    assert found[0].value["content"] == "Alice adopted a grey cat called Miso"
    assert all(i.namespace[0] == "alice" for i in found)  # another user's memory is never searched
    only_work = store.search(("alice",), query="Alice cat job", filter={"topic": "work"})
    assert [i.key for i in only_work] == ["job"]


def test_search_scores_the_turns_of_one_window_apart(store: AnchorMemStore) -> None:
    """A window's turns used to come back together, each with the window's score (three items scored 1.0
    for limit=3): now the turn holding the query's words comes first and its neighbours score lower."""
    chat = [
        {"role": "user", "content": "Good morning!", "session": "1"},
        {"role": "user", "content": "My grey cat is called Miso.", "session": "1"},
        {"role": "assistant", "content": "Lovely to hear.", "session": "1"},
        {"role": "user", "content": "I work as a nurse in Porto.", "session": "2"},
    ]
    store.memory.add(chat, user_id="alice")
    found = store.search(("alice",), query="grey cat Miso", limit=3)
    assert len(found) == 3 and len({i.key for i in found}) == 3
    assert found[0].value["text"] == "My grey cat is called Miso."
    scores = [i.score for i in found]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1 and scores[0] > scores[1]


def test_a_put_after_a_delete_stores_the_key_again(store: AnchorMemStore) -> None:
    ns = ("alice",)
    store.put(ns, "city", {"content": "Alice lives in Hamburg"})
    store.delete(ns, "city")
    store.put(ns, "city", {"content": "Alice lives in Hamburg"})  # the same item again: on purpose
    item = store.get(ns, "city")
    assert item is not None and item.value["content"] == "Alice lives in Hamburg"


def test_search_without_query_lists_filters_and_pages(store: AnchorMemStore) -> None:
    ns = ("alice", "todo")
    for i in range(5):
        store.put(ns, f"t{i}", {"content": f"Task number {i} for Alice", "done": i % 2 == 0, "n": i})
    listed = store.search(ns)
    assert [i.key for i in listed] == ["t0", "t1", "t2", "t3", "t4"]
    assert [i.key for i in store.search(ns, filter={"done": True})] == ["t0", "t2", "t4"]
    assert [i.key for i in store.search(ns, filter={"n": {"$gte": 3}})] == ["t3", "t4"]
    assert [i.key for i in store.search(ns, limit=2, offset=1)] == ["t1", "t2"]
    assert [i.key for i in store.search(("alice",), limit=1)] == ["t0"]  # a prefix covers what is under it


def test_list_namespaces(store: AnchorMemStore) -> None:
    for ns in [("alice", "prefs"), ("alice", "todo"), ("bob", "prefs"), ("bob", "trips", "2024")]:
        store.put(ns, "k", {"content": f"something about {ns[0]}"})
    assert store.list_namespaces() == [
        ("alice", "prefs"),
        ("alice", "todo"),
        ("bob", "prefs"),
        ("bob", "trips", "2024"),
    ]
    assert store.list_namespaces(prefix=("bob",)) == [("bob", "prefs"), ("bob", "trips", "2024")]
    assert store.list_namespaces(suffix=("prefs",)) == [("alice", "prefs"), ("bob", "prefs")]
    assert store.list_namespaces(prefix=("*", "prefs")) == [("alice", "prefs"), ("bob", "prefs")]
    assert store.list_namespaces(max_depth=1) == [("alice",), ("bob",)]
    assert store.list_namespaces(limit=1, offset=1) == [("alice", "todo")]


def test_async_variants(store: AnchorMemStore) -> None:
    async def run() -> tuple[object, list[SearchItem], object]:
        ns = ("carol",)
        await store.aput(ns, "book", {"content": "Carol is reading Dune by Frank Herbert"})
        got = await store.aget(ns, "book")
        found = await store.asearch(ns, query="Which book is Carol reading?")
        await store.adelete(ns, "book")
        return got, found, await store.aget(ns, "book")

    got, found, gone = asyncio.run(run())
    assert isinstance(got, Item) and got.value["content"].startswith("Carol is reading Dune")
    assert found and found[0].key == "book" and gone is None


def test_turns_added_as_conversation_are_found_too(store: AnchorMemStore) -> None:
    store.memory.add([{"speaker": "Dana", "text": "I am allergic to peanuts.", "session": "1"}], user_id="dana")
    found = store.search(("dana",), query="What is Dana allergic to?")
    assert found and found[0].value["text"] == "I am allergic to peanuts." and found[0].value["speaker"] == "Dana"
