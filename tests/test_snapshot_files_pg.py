"""Snapshot files of a PostgreSQL store: kept in a folder of ``retrieval.snapshot_dir`` named by the database, a
new process searches from the file exactly as from a fresh load, another database never reads them, and a delete
by another process (on another machine) makes the file useless rather than wrong."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index import packed, snapshot_file
from anchormem.index.snapshot_files import server_name
from anchormem.memory import Memory
from tests.pg_server import PgServer

USER = "ana"
QUERIES = ("Where does Ana live?", "What is the dog called?", "What is in the garden?", "oat milk")
SAID = (
    "I just moved to Lisbon for the design job.",
    "My dog Biscuit hates the tram.",
    "I planted tomatoes and basil in the garden.",
    "I switched to oat milk last month.",
    "We moved again, to Porto, near the river.",
)


@pytest.fixture
def url(pg_server: PgServer) -> Iterator[str]:
    got = pg_server.new_database("snap")
    yield got
    pg_server.drop_database(got)


@pytest.fixture(autouse=True)
def _pack_small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(packed, "PACK_FROM", 2)
    monkeypatch.setattr(snapshot_file, "CHUNK", 3)


def _memory(url: str, folder: Path, files: int | str = 1) -> Memory:
    settings = Settings.load(
        env={},
        store=url,
        cache=str(folder / "llm-cache.db"),
        embed__backend="hash",
        retrieval__snapshot_files=files,
        retrieval__snapshot_dir=str(folder / "snapshots"),
    )
    return Memory(settings, embedder=HashEmbedder())


def _view(memory: Memory) -> list[list[tuple[Any, ...]]]:
    out = []
    for q in QUERIES:
        hits = memory.search(q, user_id=USER).contexts
        out.append([(h.context.id, round(h.score, 9), tuple(a.fact.id for a in h.anchors)) for h in hits])
    return out


def _add(memory: Memory, sessions: range) -> None:
    for i in sessions:
        memory.add([{"speaker": "Ana", "session": str(i), "text": SAID[i]}], user_id=USER)


def _files(folder: Path) -> list[Path]:
    return sorted((folder / "snapshots").glob("*/*.snap"))


def test_a_new_process_searches_from_the_file_as_from_the_database(url: str, tmp_path: Path) -> None:
    with _memory(url, tmp_path) as memory:
        _add(memory, range(4))
        memory.search("anything", user_id=USER)
    files = _files(tmp_path)
    assert len(files) == 1 and files[0].parent.name == server_name(url) + ".snapshots"
    with _memory(url, tmp_path) as memory:
        got = _view(memory)
        assert memory._snapshots.files.read == 1
    with _memory(url, tmp_path, files="none") as fresh:
        assert got == _view(fresh)


def test_the_password_and_options_do_not_change_the_folder() -> None:
    a = server_name("postgresql://app:one@db.example:5432/memory?sslmode=require")
    assert a == server_name("postgresql://app:two@DB.example:5432/memory")
    assert a != server_name("postgresql://app:one@db.example:5432/other")
    assert a != server_name("postgresql://app:one@db.example:5433/memory")


def test_another_machines_delete_makes_the_file_useless_not_wrong(url: str, tmp_path: Path) -> None:
    with _memory(url, tmp_path) as memory:
        _add(memory, range(5))
        memory.search("anything", user_id=USER)
    assert len(_files(tmp_path)) == 1
    with _memory(url, tmp_path / "elsewhere") as other:  # another machine: its own folder
        other.delete(user_id=USER, session="1")  # the dog
    with _memory(url, tmp_path) as memory:
        got = _view(memory)
        assert memory._snapshots.files.read == 0  # the file was of an older version, with a forget since
        assert all("Biscuit" not in h.context.text for h in memory.search("Biscuit the dog", user_id=USER).contexts)
    with _memory(url, tmp_path, files="none") as fresh:
        assert got == _view(fresh)
