"""What PostgreSQL keeps of deleted words on disk, and what ``scrub(full=True)`` (``anchormem maintenance
scrub``) removes: after it, no file of the database's tables holds them. The WAL (pg_wal) is not
covered: segments are recycled, not wiped (see docs/forgetting.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from tests.pg_server import PgServer

SECRET = "violet walrus 8086"


@pytest.fixture
def url(pg_server: PgServer) -> Iterator[str]:
    url = pg_server.new_database("scrub")
    yield url
    pg_server.drop_database(url)


def _table_files(url: str) -> bytes:
    """Every file of this database's relations (tables, TOAST, indexes), after a checkpoint wrote them."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data = conn.execute("SHOW data_directory").fetchone()[0]
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
    return b"".join(f.read_bytes() for f in (Path(data) / "base" / str(oid)).iterdir() if f.is_file())


def test_delete_then_scrub_leaves_no_deleted_words_in_the_table_files(url: str, tmp_path: Path) -> None:
    cfg = Settings.load(env={}, store=url, cache=str(tmp_path / "cache.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        mem.add([{"speaker": "Ana", "session": "s", "text": f"the {SECRET} sleeps here"}], user_id="ana")
        mem.add([{"speaker": "Ana", "session": "k", "text": "my cat Tom likes fish"}], user_id="ana")
        assert SECRET.encode() in _table_files(url)
        mem.delete(user_id="ana", session="s")  # rows gone; a plain VACUUM leaves the bytes in free space
        assert SECRET.encode() in _table_files(url)
    assert main(["maintenance", "scrub", "--store", url, "--embed-backend", "hash"]) == 0
    assert SECRET.encode() not in _table_files(url)
    with Memory(cfg, embedder=HashEmbedder()) as mem:  # the memory is whole
        assert [t.text for t in mem.turns(user_id="ana")] == ["my cat Tom likes fish"]
