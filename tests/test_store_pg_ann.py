"""The PostgreSQL store's nearest facts (``PostgresStore.nearest_facts``) and the rule that gives a big scope
its HNSW index (``index_big_scopes``), on a real server: the right ids, exactly without an index and
through it with one (``EXPLAIN`` names it), one scope's index never answering for another, and the index
following adds, deletes and the scope's deletion. No timing here: ``bench/pg_hnsw.py`` measures."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from anchormem.model import Context, Fact, Scope, Turn
from anchormem.store.postgres import PostgresStore
from anchormem.store.protocol import Extraction
from tests.pg_server import PgServer

DIM = 16
ANA = Scope("ana")
ANA_AGENT = Scope("ana", agent_id="helper")
BEN = Scope("ben")


@pytest.fixture
def store(pg_server: PgServer) -> Iterator[PostgresStore]:
    url = pg_server.new_database("ann")
    s = PostgresStore(url)
    s.set_meta("embedder", "test")
    s.set_meta("embedder_dim", str(DIM))
    yield s
    s.close()
    pg_server.drop_database(url)


def _unit(rows: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _add(store: PostgresStore, scope: Scope, vectors: np.ndarray, tag: str = "f") -> list[str]:
    """One context holding a fact per vector; returns the fact ids."""
    cid = f"c-{tag}"
    store.add_turns(scope, [Turn(id=f"t-{tag}", session="s", position=0, speaker="ana", text=tag)])
    store.add_contexts(scope, [Context(id=cid, session="s", position=0, turn_ids=(f"t-{tag}",), date=None, text=tag)])
    facts = [Fact(id=f"{tag}{i}", context_id=cid, text=f"fact {tag}{i}", source="test") for i in range(len(vectors))]
    store.save_extractions(scope, [Extraction(cid, facts, vectors)])
    return [f.id for f in facts]


def _exact(store: PostgresStore, scope: Scope, q: np.ndarray, k: int) -> list[str]:
    facts, matrix = store.fact_matrix(scope)
    scores = matrix @ q
    return [facts[i].id for i in np.argsort(-scores, kind="stable")[:k]]


def test_nearest_facts_are_the_exact_top_k_with_and_without_the_index(store: PostgresStore) -> None:
    _add(store, ANA, _unit(300, 1))
    _add(store, BEN, _unit(300, 2), tag="b")  # another user's facts: never among ana's
    _add(store, ANA_AGENT, _unit(50, 3), tag="a")  # ana's agent scope: a scope of its own
    queries = _unit(5, 9)
    assert not store.ann_indexed(ANA)
    assert "facts_ann_" not in store.explain_nearest(ANA, queries[0], 10)
    for q in queries:
        hits = store.nearest_facts(ANA, q, 10)
        assert [fid for fid, _ in hits] == _exact(store, ANA, q, 10)
        facts, matrix = store.fact_matrix(ANA)
        by_id = dict(zip((f.id for f in facts), matrix @ q, strict=True))
        assert all(abs(score - float(by_id[fid])) < 1e-5 for fid, score in hits)  # the inner product

    assert store.build_ann_index(ANA)
    assert not store.build_ann_index(ANA)  # once
    assert store.ann_indexed(ANA) and not store.ann_indexed(BEN) and not store.ann_indexed(ANA_AGENT)
    assert store.ann_scopes() == {ANA: DIM}
    assert "facts_ann_" in store.explain_nearest(ANA, queries[0], 10)  # the HNSW index serves the query
    assert "facts_ann_" not in store.explain_nearest(BEN, queries[0], 10)  # ana's index is not ben's
    for q in queries:  # 300 facts, ef_search 100: the graph search finds the exact top 10
        assert [fid for fid, _ in store.nearest_facts(ANA, q, 10)] == _exact(store, ANA, q, 10)
        assert {fid for fid, _ in store.nearest_facts(ANA_AGENT, q, 60)} == {f"a{i}" for i in range(50)}
    assert len(store.nearest_facts(ANA, queries[0], 250, ef_search=40)) == 250  # more than ef_search


def test_the_index_follows_adds_and_deletes(store: PostgresStore) -> None:
    _add(store, ANA, _unit(200, 1))
    store.build_ann_index(ANA, concurrently=False)
    q = _unit(1, 7)[0]
    (new,) = _add(store, ANA, q[None, :], tag="new")  # the query itself: the nearest fact
    assert store.nearest_facts(ANA, q, 1)[0][0] == new
    store.delete_records(ANA, fact_ids=[new])
    assert new not in {fid for fid, _ in store.nearest_facts(ANA, q, 20)}
    assert store.fact_scores(ANA, q, ["f0", "f1", new, "nope"]).keys() == {"f0", "f1"}

    store.delete_scope(ANA)  # the scope's index goes with it
    assert not store.ann_indexed(ANA) and store.ann_scopes() == {}
    assert store.nearest_facts(ANA, q, 5) == []


def test_index_big_scopes_builds_by_size_and_drops_below_half(store: PostgresStore) -> None:
    _add(store, ANA, _unit(120, 1))
    _add(store, BEN, _unit(40, 2), tag="b")
    assert store.index_big_scopes(min_facts=100) == {"built": [ANA], "dropped": [], "kept": []}
    assert store.ann_scopes() == {ANA: DIM}
    assert store.index_big_scopes(min_facts=100) == {"built": [], "dropped": [], "kept": [ANA]}
    store.delete_records(ANA, fact_ids=[f"f{i}" for i in range(65)])  # 55 left: above half of 100, kept
    assert store.index_big_scopes(min_facts=100)["kept"] == [ANA]
    store.delete_records(ANA, fact_ids=[f"f{i}" for i in range(65, 75)])  # 45 left: below half
    assert store.index_big_scopes(min_facts=100) == {"built": [], "dropped": [ANA], "kept": []}
    assert store.ann_scopes() == {}


def test_the_maintenance_command_applies_the_rule(store: PostgresStore, capsys: pytest.CaptureFixture[str]) -> None:
    from anchormem.cli.main import main

    _add(store, ANA, _unit(120, 1))
    _add(store, ANA_AGENT, _unit(30, 2), tag="a")
    base = ["maintenance", "ann-index", "--store", store.url, "--embed-backend", "hash"]
    assert main([*base, "--min-facts", "100"]) == 0
    assert "built: user_id=ana;" in capsys.readouterr().out
    assert store.ann_scopes() == {ANA: DIM}
    assert main([*base, "--min-facts", "1000", "--json"]) == 0  # 120 facts: below half of 1,000
    assert '"dropped": [\n    {\n      "user_id": "ana"' in capsys.readouterr().out
    assert store.ann_scopes() == {}
