"""Snapshot files next to a SQLite store: a new process searches from the file exactly as from a fresh load, a
stale, foreign or broken file is never used (and goes), and forgetting removes the file."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index import packed, snapshot_file
from anchormem.index.snapshot_files import SnapshotFiles
from anchormem.memory import Memory
from anchormem.model import Scope

QUERIES = (
    "Where does the user live now?",
    "What is the name of Sam's dog?",
    "What did the assistant suggest for the garden?",
    "When did the user start the new job?",
    "oat milk",
)
USER = "ana"


def _sessions() -> list[list[dict[str, Any]]]:
    said = [
        ("I just moved to Lisbon for the design job.", "Lisbon is lovely; the trams are a good way to start."),
        ("My dog Biscuit hates the tram.", "Try short rides with treats so Biscuit gets used to it."),
        ("Sam's dog is called Pepper, a beagle.", "Beagles like Pepper need long walks."),
        ("I planted tomatoes and basil in the garden.", "Water the tomatoes in the morning and mulch the basil."),
        ("I switched to oat milk last month.", "Oat milk foams well for a flat white."),
        ("I started a new job at the museum in June.", "Congratulations on the museum job!"),
        ("We moved again, to Porto, near the river.", "Porto's riverside is beautiful in the evening."),
    ]
    return [
        [
            {"role": "user", "content": u, "session": str(i), "created_at": f"2024-0{i}-02T10:00:00"},
            {"role": "assistant", "content": a, "session": str(i), "created_at": f"2024-0{i}-02T10:01:00"},
        ]
        for i, (u, a) in enumerate(said, 1)
    ]


def _memory(store: Path, files: int | str = 1) -> Memory:
    settings = Settings.load(env={}, store=str(store), embed__backend="hash", retrieval__snapshot_files=files)
    return Memory(settings, embedder=HashEmbedder())


def _view(memory: Memory) -> list[list[tuple[object, ...]]]:
    out = []
    for q in QUERIES:
        hits = memory.search(q, user_id=USER).contexts
        out.append([(h.context.id, round(h.score, 9), h.latest, tuple(a.fact.id for a in h.anchors)) for h in hits])
    return out


def _fresh(store: Path) -> list[list[tuple[object, ...]]]:
    with _memory(store, files="none") as memory:
        return _view(memory)


def _file(store: Path) -> Path:
    return snapshot_file.path_of(store, Scope(USER))


@pytest.fixture(autouse=True)
def _pack_small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packed, "PACK_FROM", 2)  # the packed maps and lists, on a small memory
    monkeypatch.setattr(snapshot_file, "CHUNK", 3)  # several chunks of records


def _grown(store: Path, sessions: int = 5) -> None:
    with _memory(store) as memory:
        for s in _sessions()[:sessions]:
            memory.add(s, user_id=USER)
        memory.search("anything", user_id=USER)


def test_a_new_process_searches_from_the_file_as_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)  # loaded whole (the first search) and grown by the adds: the file is written at close
    assert _file(store).exists()
    assert os.stat(_file(store)).st_mode & 0o777 == 0o600
    with _memory(store) as memory:
        got = _view(memory)
        assert memory._snapshots.files.read == 1
    assert got == _fresh(store)


def test_adds_after_reading_the_file_search_as_a_fresh_load(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    with _memory(store) as memory:
        memory.search("tram", user_id=USER)  # from the file
        for s in _sessions()[5:]:
            memory.add(s, user_id=USER)  # grown from the file's snapshot
        got = _view(memory)
    assert got == _fresh(store)
    with _memory(store) as memory:  # close wrote the grown one
        assert _view(memory) == got and memory._snapshots.files.read == 1


def test_a_file_behind_another_process_adds_is_brought_up_to_date(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    with _memory(store, files="none") as other:
        other.add(_sessions()[5], user_id=USER)  # the file is now one version (or a few) behind
    with _memory(store) as memory:
        got = _view(memory)
        assert memory._snapshots.files.read == 1  # the file, and the store's log of what was added since
    assert got == _fresh(store)


def test_a_file_behind_a_removal_is_not_used(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    kept = _file(store).read_bytes()
    with _memory(store, files="none") as other:
        other.delete(user_id=USER, session="2")  # removes the file; put it back, as if that process had died
    _file(store).write_bytes(kept)
    with _memory(store) as memory:
        got = _view(memory)
        assert memory._snapshots.files.read == 0
        assert all("Biscuit" not in h.context.text for h in memory.search("Biscuit", user_id=USER).contexts)
    assert got == _fresh(store)
    assert b"Biscuit" not in _file(store).read_bytes()  # the whole load wrote the file anew


def test_forgetting_removes_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    with _memory(store) as memory:
        memory.search("tram", user_id=USER)
        with monkeypatch.context() as m:  # the re-cut after the delete loads the scope: no new file for now
            m.setattr(SnapshotFiles, "keep_later", lambda *_: None)
            memory.delete(user_id=USER, session="2")  # Biscuit's session
            assert not _file(store).exists()
        assert all("Biscuit" not in h.context.text for h in memory.search("Biscuit tram", user_id=USER).contexts)
        memory.delete(user_id=USER, session="3")  # Pepper's
        memory.search("dog", user_id=USER)  # the memory as it is now: its file is written at close
    assert _file(store).exists()
    for found in snapshot_file.folder(store).glob("*"):
        assert b"Biscuit" not in found.read_bytes() and b"Pepper" not in found.read_bytes()
    with _memory(store) as memory:
        assert _view(memory) == _fresh(store) and memory._snapshots.files.read == 1
    with _memory(store) as memory:
        memory.delete(user_id=USER, all=True)
    assert not list(snapshot_file.folder(store).glob("*"))


def test_a_broken_or_foreign_file_is_not_used_and_goes(tmp_path: Path) -> None:
    store, other = tmp_path / "m.db", tmp_path / "other.db"
    _grown(store)
    _grown(other, sessions=3)
    expected = _fresh(store)
    _file(store).write_bytes(_file(other).read_bytes())  # another store's file for the same scope
    with _memory(store) as memory:
        assert _view(memory) == expected and memory._snapshots.files.read == 0
    _file(store).write_bytes(b"not a snapshot")
    with _memory(store) as memory:
        assert _view(memory) == expected and memory._snapshots.files.read == 0
    assert _file(store).exists()  # the whole load wrote a good one; other code would not read it:
    snapshot_file.code_stamp.cache_clear()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(snapshot_file, "code_stamp", lambda: "other code")
        with _memory(store) as memory:
            assert _view(memory) == expected and memory._snapshots.files.read == 0


def test_a_file_naming_other_code_runs_nothing(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    data = _file(store).read_bytes()
    header_end = len(data) - len(snapshot_file.MAGIC) - 8
    length = int.from_bytes(data[header_end : header_end + 8], "little")
    header = data[header_end - length : header_end]
    evil = pickle.dumps(_Evil(tmp_path / "ran"))
    body = data[: header_end - length]
    parsed = json.loads(header)
    parsed["segments"]["state"] = [len(body), len(evil)]  # the state: a pickle that calls os.mkdir
    body += evil
    new_header = json.dumps(parsed).encode()
    _file(store).write_bytes(body + new_header + len(new_header).to_bytes(8, "little") + snapshot_file.MAGIC)
    with _memory(store) as memory:
        assert _view(memory) == _fresh(store) and memory._snapshots.files.read == 0
    assert not (tmp_path / "ran").exists()


class _Evil:
    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.mkdir, (str(self.mark),))


def test_no_files_when_switched_off_or_small(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store, files="none") as memory:
        assert memory.settings.retrieval.snapshot_files is None
        memory.add(_sessions()[0], user_id=USER)
        memory.search("tram", user_id=USER)
    with _memory(store, files=10_000) as memory:
        memory.search("tram", user_id=USER)
    assert not snapshot_file.folder(store).exists()
    with _memory(store, files=1) as memory:
        memory.search("tram", user_id=USER)
    assert _file(store).exists()


def _texts(memory: Memory, q: str) -> list[str]:
    return [h.context.text for h in memory.search(q, user_id=USER).contexts]


def test_a_scope_deleted_whole_and_made_again_is_not_grown_from_the_old(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    holder, other = _memory(store), _memory(store, files="none")
    try:
        for s in _sessions()[:3]:
            holder.add(s, user_id=USER)
        assert any("Biscuit" in t for t in _texts(holder, "Biscuit"))
        other.delete(user_id=USER, all=True)
        other.add(_sessions()[6], user_id=USER)  # its first version may follow the one the holder has
        assert not any("Biscuit" in t for t in _texts(holder, "Biscuit dog tram"))
    finally:
        holder.close()
        other.close()
    assert not _file(store).exists() or b"Biscuit" not in _file(store).read_bytes()


def test_a_restored_backup_does_not_match_a_file_of_the_same_version_number(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    with _memory(store) as memory:
        memory.add(_sessions()[0], user_id=USER)
        memory.search("tram", user_id=USER)
    shutil.copy(store, tmp_path / "backup.db")
    with _memory(store) as memory:
        memory.add(_sessions()[1], user_id=USER)  # Biscuit, in the file at the next version
        memory.search("dog", user_id=USER)
    assert b"Biscuit" in _file(store).read_bytes()
    for tail in ("-wal", "-shm"):
        Path(f"{store}{tail}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.db", store)
    with _memory(store, files="none") as memory:
        memory.add(_sessions()[3], user_id=USER)  # other words, the same version number
    with _memory(store) as memory:
        assert not any("Biscuit" in t for t in _texts(memory, "Biscuit dog tram"))
        assert memory._snapshots.files.read == 0


def test_the_files_are_found_through_another_spelling_of_the_store_path(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    link = tmp_path / "link.db"
    link.symlink_to(store)
    with _memory(link, files="none") as memory:
        memory.delete(user_id=USER, session="2")  # through the link: the file beside the real path goes
    assert not _file(store).exists()
    assert snapshot_file.folder(link) == snapshot_file.folder(store)


def test_a_store_written_before_the_log_gets_its_file(tmp_path: Path) -> None:
    store = tmp_path / "m.db"
    _grown(store)
    _file(store).unlink()
    with sqlite3.connect(store) as db:  # as a store written before the change log existed holds it
        db.execute("DELETE FROM changes")
    with _memory(store) as memory:
        expected = _view(memory)  # a whole load; its file names the version by a nonce logged now
    with _memory(store) as memory:
        assert _view(memory) == expected and memory._snapshots.files.read == 1


def test_a_file_cannot_make_the_reader_allocate_by_a_number() -> None:
    """The classes a snapshot file may name take arrays, not sizes: a pickle calling ``FactGroups`` with the old
    ``(segments, n_contexts)`` arguments and a huge count is an error, not an allocation of that many rows."""
    crafted = pickle.dumps(_Huge())
    with pytest.raises(TypeError):
        snapshot_file._Snapshot(crafted, {}, []).load()


class _Huge:
    def __reduce__(self) -> tuple[Any, ...]:
        from anchormem.index.snapshot import FactGroups

        rows = list(range(3))
        return (FactGroups, ((rows, rows, rows), 10**10))
