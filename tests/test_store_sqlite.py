"""What is the SQLite store's own: its file, its folder, its WAL, several connections to one file.

The behaviour both stores share is in test_store_suite.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from anchormem.errors import StoreError
from anchormem.model import Context, Fact, Scope, Turn
from anchormem.store.protocol import Extraction
from anchormem.store.sql.migrations import SQLITE_MIGRATIONS
from anchormem.store.sqlite import SQLiteStore

A = Scope("a")
SECRET = "my locker code is 4921-zebra"


def _turn(text: str) -> Turn:
    return Turn(id="D1:1", session="1", position=0, speaker="X", text=text)


def _ctx(i: int) -> Context:
    return Context(id=f"c{i}", session="1", position=i, turn_ids=("D1:1",), date="d", text=f"DATE: d\nX said, {i}")


def test_a_missing_folder_is_an_error_not_created(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        SQLiteStore(tmp_path / "typo" / "memory.db")
    assert not (tmp_path / "typo").exists()
    store = SQLiteStore(tmp_path / "new" / "deeper" / "memory.db", create_parent=True)
    store.close()
    assert (tmp_path / "new" / "deeper" / "memory.db").is_file()


def test_two_connections_share_one_file(tmp_path: Path) -> None:
    first, second = SQLiteStore(tmp_path / "m.db"), SQLiteStore(tmp_path / "m.db")
    try:
        assert second.migrations() == [name for name, _ in SQLITE_MIGRATIONS]
        first.add_turns(A, [_turn("hello")])
        first.add_contexts(A, [_ctx(1)])
        assert second.contexts(A) == [_ctx(1)] and second.version(A) == first.version(A) > 0
        assert second.add_contexts(A, [_ctx(1), _ctx(2)]) == [_ctx(2)]  # the other's row is seen as existing
        assert [c.id for c in first.contexts(A)] == ["c1", "c2"]
    finally:
        first.close()
        second.close()


def test_scrub_leaves_no_deleted_words_in_the_files(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    store.add_turns(A, [_turn(SECRET)])
    store.add_contexts(A, [_ctx(1)])
    store.save_extractions(A, [Extraction("c1", [Fact("f1", "c1", SECRET)], np.ones((1, 4), np.float32))])
    store.delete_records(A, turn_ids=["D1:1"], fact_ids=["f1"])
    store.scrub()
    wal = Path(f"{path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert SECRET.encode() not in path.read_bytes()
    store.close()


def test_in_memory_store(tmp_path: Path) -> None:
    store = SQLiteStore(":memory:")
    store.add_turns(A, [_turn("hello")])
    assert [t.text for t in store.turns(A)] == ["hello"]
    store.scrub()  # nothing to checkpoint
    store.close()
    assert list(tmp_path.iterdir()) == []


def test_a_number_sqlite_cannot_hold_is_a_store_error(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    with pytest.raises(StoreError):
        store.add_turns(A, [Turn(id="D1:1", session="1", position=2**70, speaker="X", text="x")])
    assert store.turns(A) == []
    store.close()
