"""A process holding a snapshot catches up with another process's adds from the store's log of what each
version added (``store.sql.changelog``), without loading the scope again; anything else loads it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import Scope
from anchormem.store.sql import changelog

USER = "ana"
SESSIONS = [
    [("user", "I moved to Lisbon for the design job."), ("assistant", "Lisbon's trams are a good start.")],
    [("user", "My dog Biscuit hates the tram."), ("assistant", "Short rides with treats help Biscuit.")],
    [("user", "I planted tomatoes and basil."), ("assistant", "Water the tomatoes in the morning.")],
    [("user", "We moved again, to Porto, near the river."), ("assistant", "Porto's riverside is lovely.")],
]
QUERIES = ("Where does the user live?", "What is the dog's name?", "tomatoes", "river")


def _memory(store: Path) -> Memory:
    settings = Settings.load(env={}, store=str(store), embed__backend="hash", retrieval__snapshot_files="none")
    return Memory(settings, embedder=HashEmbedder())


def _session(i: int) -> list[dict[str, str]]:
    return [{"role": r, "content": t, "session": str(i + 1)} for r, t in SESSIONS[i]]


def _view(memory: Memory) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    out = []
    for q in QUERIES:
        hits = memory.search(q, user_id=USER).contexts
        out.append([(h.context.id, round(h.score, 9), tuple(a.fact.id for a in h.anchors)) for h in hits])
    return out


def _fresh(store: Path) -> list[list[tuple[str, float, tuple[str, ...]]]]:
    with _memory(store) as memory:
        return _view(memory)


def _holding(memory: Memory, sessions: int = 1) -> int:
    """Add the first sessions and search, so ``memory`` holds the scope; the loads so far."""
    for i in range(sessions):
        memory.add(_session(i), user_id=USER)
    memory.search("Lisbon", user_id=USER)
    return memory._snapshots.loads


def test_another_process_adds_are_applied_not_reloaded(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store) as memory, _memory(store) as other:
        loads = _holding(memory)
        other.add(_session(1), user_id=USER)
        other.add(_session(2), user_id=USER)
        got = _view(memory)
        assert memory._snapshots.loads == loads  # grown by the logged adds
        assert any("Biscuit" in h.context.text for h in memory.search("Biscuit", user_id=USER).contexts)
    assert got == _fresh(store)


def test_another_process_message_in_a_running_session_is_applied(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store) as memory, _memory(store) as other:
        loads = _holding(memory)
        before = {c.id for c in memory.contexts(user_id=USER)}
        for text in ("The trams there are yellow.", "Ok, and the river is lovely too."):  # the last window is re-cut
            other.add([{"role": "user", "content": text, "session": "1"}], user_id=USER)
        assert before - {c.id for c in memory.contexts(user_id=USER)}  # a window was replaced (removed)
        got = _view(memory)
        assert memory._snapshots.loads == loads
    assert got == _fresh(store)


def test_another_process_delete_loads_the_scope_again(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store) as memory, _memory(store) as other:
        loads = _holding(memory, sessions=3)
        other.delete(user_id=USER, session="2")
        other.add(_session(3), user_id=USER)
        got = _view(memory)
        assert memory._snapshots.loads == loads + 1
        assert all("Biscuit" not in h.context.text for h in memory.search("Biscuit tram", user_id=USER).contexts)
    assert got == _fresh(store)


def test_versions_the_log_let_go_load_the_scope_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changelog, "KEPT", 2)
    store = tmp_path / "m.db"
    with _memory(store) as memory, _memory(store) as other:
        loads = _holding(memory)
        for i in (1, 2, 3):
            other.add(_session(i), user_id=USER)
        got = _view(memory)
        assert memory._snapshots.loads == loads + 1
        rows = other._parts.store._q("SELECT COUNT(*) FROM changes WHERE user_id = ?", (USER,))
        assert rows[0][0] <= 2
    assert got == _fresh(store)


def test_the_log_holds_ids_only_and_goes_with_the_scope(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store) as memory:
        memory.add(_session(1), user_id=USER)
        entries = [e for (e,) in memory._parts.store._q("SELECT entry FROM changes", ())]
        assert entries and not any("Biscuit" in e for e in entries)
        scope = Scope(USER)
        version = memory._parts.store.version(scope)
        assert memory._parts.store.changes_since(scope, version, version) == []
        memory.delete(user_id=USER, all=True)
        assert memory._parts.store._q("SELECT COUNT(*) FROM changes", ())[0][0] == 0


def test_changes_that_add_what_a_snapshot_holds_add_nothing(tmp_path: Path) -> None:
    """A whole load may read rows written after the version it is labelled with; the changes since then add them
    again, and must not make two of them."""
    from anchormem.index.evolve import evolve
    from anchormem.store.journal import Change

    with _memory(tmp_path / "m.db") as memory:
        _holding(memory, sessions=2)
        snap = memory._snapshots.get(Scope(USER))
        again = Change(
            contexts=tuple(snap.contexts[:2]),
            facts=tuple(snap.facts[:3]),
            fact_vectors=snap.fact_vectors[[0, 1, 2]],
            events=tuple(snap.events[:1]),
            event_vectors=snap.event_vectors[[0]] if len(snap.events) else snap.event_vectors,
        )
        grown = evolve(snap, [again])
        assert [c.id for c in grown.contexts] == [c.id for c in snap.contexts]
        assert [f.id for f in grown.facts] == [f.id for f in snap.facts]
        assert [e.id for e in grown.events] == [e.id for e in snap.events]
