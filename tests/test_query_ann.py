"""Search of a PostgreSQL scope through its HNSW index (``anchormem.index.ann``) on a real server: the same
results as the in-process matrix on a small memory (a few hundred facts: the graph search is exact with
``ef_search`` at least the row count), with the scope's fact matrix never read; an add after the index exists
is found by the next search, a delete leaves nothing of the deleted turn; a search over the user and an agent
scope without an index merges both; facts outside the candidate list never outrank one. No timing here:
``bench/pg_hnsw.py --search`` measures."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index import ann
from anchormem.index.store_rows import StackedRows, StoreRows
from anchormem.memory import Memory
from anchormem.model import Scope, SearchResult
from tests.fixtures import search_view
from tests.pg_server import PgServer

ANA = Scope("ana")
QUESTIONS = (
    "Where does the user live now?",
    "What is the name of the dog?",
    "What job does the user have?",
    "What did the user cook with lentils?",
    "When did the user start running?",
    "Where did the user live before Leeds?",  # the before-change stage: the subject's statements
    "What did the assistant suggest?",
)
WORDS = (
    "I moved to Leeds in March and the flat has a small garden",
    "I lived on a houseboat in Amsterdam for two years",
    "My dog Biscuit loves the beach near the new place",
    "I started a job as a nurse at the city hospital",
    "Cooked a lentil soup with carrots and cumin tonight",
    "Went running by the river, five kilometres this morning",
    "The assistant suggested a training plan for the half marathon",
    "We talked about switching from coffee to matcha",
    "My sister visits in June and we plan to hike in the Dales",
)


def _messages(start: int, count: int, session: str) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + count):
        rng = random.Random(i)
        text = f"{rng.choice(WORDS)} ({rng.choice(WORDS).split(' ', 3)[-1]}), note {i}."
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": text, "session": session})
    return out


def _settings(url: str, **retrieval: Any) -> Settings:
    options = {f"retrieval__{k}": v for k, v in retrieval.items()}
    return Settings.load(env={}, store=url, embed__backend="hash", **options)


def _view(result: SearchResult) -> list[tuple[Any, ...]]:
    """What a search returns, scores to 5 places (the database's inner products and numpy's differ in the 7th)."""
    return search_view(result, places=5, anchor_places=5)


def _same(a: Any, b: Any) -> bool:
    """Two views alike, scores within 2e-5: a score next to a rounding boundary of the 5th place may round either
    way (a result of 16 places reaches contexts whose scores sit there)."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 2e-5
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.fixture
def url(pg_server: PgServer) -> Iterator[str]:
    address = pg_server.new_database("annq")
    yield address
    pg_server.drop_database(address)


def _grow(url: str) -> None:
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        for s in range(6):
            mem.add(_messages(40 * s, 40, f"s{s}"), user_id="ana")


def _searches(mem: Memory, **scope: Any) -> list[list[tuple[Any, ...]]]:
    out = [_view(mem.search(q, user_id="ana", **scope)) for q in QUESTIONS]
    out.append(_view(mem.search("lentil soup", user_id="ana", session="s2", **scope)))  # a filtered part
    out.append(_view(mem.search("dog on the beach", user_id="ana", variant="paper", **scope)))
    return out


def _no_matrix(mem: Memory) -> None:
    def refuse(scope: Scope) -> Any:
        raise AssertionError(f"the fact matrix of {scope} was read")

    mem.store.fact_matrix = refuse  # type: ignore[method-assign]


def test_search_through_the_index_returns_what_the_matrix_returns(url: str) -> None:
    _grow(url)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        assert len(mem.store.facts(ANA)) >= 200
        assert mem.store.build_ann_index(ANA)
    with Memory(_settings(url, ann_index=False), embedder=HashEmbedder()) as matrix:
        expected = _searches(matrix, include_subscopes=False)
        assert not isinstance(matrix._snapshots.get(ANA).fact_vectors, StoreRows)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        _no_matrix(mem)
        assert _same(_searches(mem, include_subscopes=False), expected)
        assert isinstance(mem._snapshots.get(ANA).fact_vectors, StoreRows)


def test_an_add_is_found_and_a_delete_leaves_nothing(url: str) -> None:
    _grow(url)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        mem.store.build_ann_index(ANA)
        _no_matrix(mem)
        mem.search("Where does the user live now?", user_id="ana")
        loads = mem._snapshots.loads
        mem.add([{"role": "user", "content": "My locker code is albatross seven", "session": "gym"}], user_id="ana")
        mem.add(_messages(900, 4, "s3"), user_id="ana")  # more linking through the index
        found = mem.search("what is my locker code", user_id="ana")
        assert mem._snapshots.loads == loads  # grown by the adds, not loaded again
        assert isinstance(mem._snapshots.get(ANA).fact_vectors, StoreRows)
        assert "albatross" in found.contexts[0].context.text
        added = {a.fact.id for a in found.contexts[0].anchors}
        assert added and all(a.score > 0.3 for a in found.contexts[0].anchors)
        grown = _searches(mem)
        with Memory(_settings(url, ann_index=False), embedder=HashEmbedder()) as matrix:
            assert _same(_searches(matrix), grown)  # the grown index-path snapshot = a fresh matrix load

        turn = found.contexts[0].context.turn_ids[0]
        mem.delete(session="gym", user_id="ana")
        after = mem.search("what is my locker code albatross", user_id="ana")
        for hit in after.contexts:
            assert "albatross" not in hit.context.text and turn not in hit.context.turn_ids
            assert not {a.fact.id for a in hit.anchors} & added
        assert all("albatross" not in e.event.text for e in after.events)
        snap = mem._snapshots.get(ANA)
        assert not any("albatross" in f.text for f in snap.facts)
        with Memory(_settings(url, ann_index=False), embedder=HashEmbedder()) as matrix:
            assert _same(_view(matrix.search("what is my locker code albatross", user_id="ana")), _view(after))


def test_a_search_over_an_indexed_scope_and_an_agent_scope_merges_both(url: str) -> None:
    _grow(url)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        mem.add(_messages(500, 12, "h1"), user_id="ana", agent_id="helper")
        mem.store.build_ann_index(ANA)
    with Memory(_settings(url, ann_index=False), embedder=HashEmbedder()) as matrix:
        expected = _searches(matrix)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        _no_matrix_of_ana = mem.store.fact_matrix

        def only_the_agent(scope: Scope) -> Any:
            assert scope != ANA, "the indexed scope's fact matrix was read"
            return _no_matrix_of_ana(scope)

        mem.store.fact_matrix = only_the_agent  # type: ignore[method-assign]
        assert _same(_searches(mem), expected)
        merged = mem._snapshots.covering(ANA)
        assert merged is not None and isinstance(merged.fact_vectors, StackedRows)


def test_facts_outside_the_candidates_never_outrank_one(url: str) -> None:
    _grow(url)
    with Memory(_settings(url), embedder=HashEmbedder()) as mem:
        mem.store.build_ann_index(ANA)
        snap = mem._snapshots.get(ANA)
        assert isinstance(snap.fact_vectors, StoreRows)
        _, matrix = mem.store.fact_matrix(ANA)
        q = mem.embedder.embed(["Where does the user live now?"])[0]
        exact = matrix @ q
        n = 50
        scores, candidates = ann.ranked_facts(snap, q, n)
        assert candidates is not None and len(candidates) > n  # the nearest, and their contexts' other facts
        outside = np.setdiff1d(np.arange(len(snap.facts)), candidates)
        assert outside.size and scores[outside].max() < scores[candidates[:n]].min()  # strictly: ties go to lower rows
        assert np.allclose(scores[candidates], exact[candidates], atol=1e-5)  # every candidate scored exactly
        assert set(candidates[:n].tolist()) == set(np.argsort(-exact, kind="stable")[:n].tolist())
        assert np.allclose(snap.fact_vectors[candidates[:5]], matrix[candidates[:5]])  # rows fetched by id
