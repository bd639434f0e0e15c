"""The optional store capabilities (``anchormem.store.capabilities``), run against every backend: which
protocols each one offers, checked by type as the layers above check them, and each offered one doing its job
(the change feed and journal saying what a write added, the version stamps, the location, the check, and on
PostgreSQL the ANN index finding a scope's facts)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from anchormem.model import Context, Fact, Scope, Turn
from anchormem.store.capabilities import AnnIndex, ChangeFeed, ChangeJournal, Checkable, Located, VersionStamps
from anchormem.store.factory import open_store
from anchormem.store.protocol import Extraction, Store
from anchormem.store.sql.migrations import PG_MIGRATIONS, SQLITE_MIGRATIONS

pytestmark = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
ANA = Scope("ana")
DIM = 8


@pytest.fixture
def store(location: str) -> Iterator[Store]:
    s = open_store(location)
    s.set_meta("embedder_dim", str(DIM))
    yield s
    s.close()


def _add(store: Store, n: int, turns: bool = True) -> list[str]:
    """One turn, one context holding ``n`` facts with unit vectors; the fact ids."""
    if turns:
        store.add_turns(ANA, [Turn(id="t1", session="s", position=0, speaker="ana", text="I keep bees.")])
    store.add_contexts(ANA, [Context(id="c1", session="s", position=0, turn_ids=("t1",), date=None, text="bees")])
    vectors = np.random.default_rng(3).standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    facts = [Fact(id=f"f{i}", context_id="c1", text=f"fact {i}", source="test") for i in range(n)]
    store.save_extractions(ANA, [Extraction("c1", facts, vectors)])
    return [f.id for f in facts]


def test_each_backend_offers_what_it_declares(store: Store, location: str) -> None:
    for capability in (ChangeJournal, ChangeFeed, VersionStamps, Located, Checkable):
        assert isinstance(store, capability), capability.__name__
    assert isinstance(store, AnnIndex) == location.startswith("postgres")
    assert not isinstance(object(), ChangeFeed | ChangeJournal | VersionStamps | AnnIndex | Located | Checkable)


def test_the_journal_and_the_change_feed_say_what_a_write_added(store: Store) -> None:
    assert isinstance(store, ChangeJournal) and isinstance(store, ChangeFeed)
    store.add_turns(ANA, [Turn(id="t1", session="s", position=0, speaker="ana", text="I keep bees.")])
    before = store.version(ANA)  # after the turns: a write whose rows retrieval never reads says nothing here
    ids = _add(store, 3, turns=False)
    now = store.version(ANA)
    assert now > before
    for changes in (store.journal.since(ANA, before, now), store.changes_since(ANA, before, now)):
        assert changes is not None and len(changes) == now - before
        assert [f.id for c in changes for f in c.facts] == ids
        assert [c.id for ch in changes for c in ch.contexts] == ["c1"]
    assert store.changes_since(ANA, now, now) == []


def test_version_stamps_date_a_scope_version(store: Store, location: str) -> None:
    assert isinstance(store, VersionStamps)
    _add(store, 1)
    version = store.version(ANA)
    nonce = store.version_nonce(ANA, version, create=True)
    assert nonce and store.version_nonce(ANA, version) == nonce
    migrations = PG_MIGRATIONS if location.startswith("postgres") else SQLITE_MIGRATIONS
    assert store.schema_version == len(migrations)


def test_a_store_says_where_it_is_and_checks_itself(store: Store) -> None:
    assert isinstance(store, Located) and isinstance(store, Checkable)
    assert store.path and "password" not in store.path
    _add(store, 2)
    assert store.check().ok


def test_the_ann_index_finds_a_scopes_facts(store: Store, location: str) -> None:
    if not isinstance(store, AnnIndex):
        assert not location.startswith("postgres")  # SQLite searches in memory: nothing to index
        return
    ids = _add(store, 40)
    assert not store.ann_indexed(ANA)
    done = store.index_big_scopes(min_facts=10)
    assert ANA in done["built"] and store.ann_indexed(ANA)
    facts, matrix = store.fact_matrix(ANA)
    best = facts[int(np.argmax(matrix @ matrix[5]))].id
    assert store.nearest_facts(ANA, matrix[5], 1)[0][0] == best == ids[5]
    scores = store.fact_scores(ANA, matrix[5], ids[:3])
    assert set(scores) == set(ids[:3])
    assert set(store.fact_vectors(ANA, ids[:2])) == set(ids[:2])
    mean, count = store.fact_vector_mean(ANA, ids)
    assert count == len(ids) and mean.shape == (DIM,)
