"""The SQLite store: migrations, idempotent inserts, scoping, vectors, usage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from anchormem.errors import StoreError
from anchormem.model import Context, Event, Fact, Scope, Turn, Usage
from anchormem.store.migrations import SQLITE_MIGRATIONS
from anchormem.store.protocol import Extraction, Store
from anchormem.store.sqlite import SQLiteStore

A, B = Scope("a"), Scope("b")


def _ctx(i: int) -> Context:
    return Context(id=f"c{i}", session="1", position=i, turn_ids=(f"D1:{i}",), date="d", text=f"DATE: d\nX said, {i}")


def test_is_a_store_and_migrations_run_once(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "x.db")
    assert isinstance(s, Store)
    s.close()
    s = SQLiteStore(tmp_path / "x.db")  # reopening applies nothing twice
    names = [r[0] for r in s._q("SELECT name FROM _migrations")]
    assert names == [name for name, _ in SQLITE_MIGRATIONS]
    s.close()


def test_inserts_are_idempotent_and_scoped(store: SQLiteStore) -> None:
    turn = Turn(id="D1:1", session="1", position=0, speaker="X", text="hi", timestamp="t")
    assert store.add_turns(A, [turn]) == [turn]
    assert store.add_turns(A, [turn]) == []
    assert store.add_turns(B, [turn]) == [turn]
    assert store.add_contexts(A, [_ctx(1), _ctx(2)]) == [_ctx(1), _ctx(2)]
    assert store.add_contexts(A, [_ctx(1)]) == []
    assert store.contexts(B) == [] and store.version(Scope("nobody")) == 0
    assert {s.user_id for s in store.scopes()} == {"a", "b"}


def test_extractions_store_vectors_and_mark_done(store: SQLiteStore) -> None:
    store.set_meta("embedder_dim", "3")
    store.add_contexts(A, [_ctx(1), _ctx(2)])
    facts = [Fact(id="f1", context_id="c1", text="one"), Fact(id="f2", context_id="c1", text="two")]
    vecs = np.eye(3, dtype=np.float32)[:2]
    assert store.save_extractions(A, [Extraction("c1", facts, vecs)]) == 2
    store.mark_failed(A, "c2", "LLMResponseError: junk")
    states = {s.context_id: s for s in store.extraction_states(A)}
    assert states["c1"].status == "done" and states["c2"].status == "failed" and "junk" in (states["c2"].error or "")
    got, matrix = store.fact_matrix(A)
    assert got == facts and np.array_equal(matrix, vecs)
    assert store.fact_matrix(B)[1].shape == (0, 3)
    with pytest.raises(StoreError):
        store.save_extractions(A, [Extraction("c1", facts, vecs[:1])])
    assert len(store.facts(A)) == 2  # the failed transaction changed nothing


def test_events_and_usage(store: SQLiteStore) -> None:
    store.set_meta("embedder_dim", "2")
    ev = Event(id="e1", text="story", fact_ids=("f1", "f2"))
    assert store.add_events(A, [ev], np.ones((1, 2), np.float32)) == 1
    assert store.add_events(A, [ev], np.ones((1, 2), np.float32)) == 0
    assert store.events(A) == [ev] and store.events(B) == []
    store.record_usage(A, {"extraction": Usage(calls=2, prompt_tokens=10, completion_tokens=5, seconds=1.0)})
    store.record_usage(A, {"extraction": Usage(calls=1, prompt_tokens=1, completion_tokens=1, seconds=0.5)})
    u = store.usage(A)["extraction"]
    assert (u.calls, u.prompt_tokens, u.completion_tokens, u.seconds) == (3, 11, 6, 1.5)


def test_version_changes_on_every_write(store: SQLiteStore) -> None:
    v0 = store.version(A)
    store.add_contexts(A, [_ctx(1)])
    v1 = store.version(A)
    store.add_contexts(A, [_ctx(1)])  # nothing new: no change
    assert v0 < v1 == store.version(A)


def test_corrupt_file_gives_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open store"):
        SQLiteStore(bad)


def test_sqlite_errors_are_translated(store: SQLiteStore) -> None:
    store._db.close()
    with pytest.raises(StoreError):
        store.contexts(A)
    assert issubclass(StoreError, Exception) and not issubclass(StoreError, sqlite3.Error)
