"""A memory moves between the two store backends through export and import."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.store.postgres import PostgresStore
from tests.conftest import llm_responder
from tests.fixtures import locomo_sample, write_locomo
from tests.pg_server import PgServer


def test_export_import_moves_a_memory_between_sqlite_and_postgres(pg_server: PgServer, tmp_path: Path) -> None:
    """SQLite → PostgreSQL → SQLite: each hop's export is identical, and search gives the same answer."""

    def memory(where: str) -> Memory:
        settings = Settings.load(
            env={}, store=where, cache=str(tmp_path / f"{abs(hash(where))}.db"), embed__backend="hash"
        )
        return Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(llm_responder))

    location = pg_server.new_database()
    query = "What is the name of Ana's dog?"
    with memory(str(tmp_path / "a.db")) as source:
        source.add(write_locomo(tmp_path / "conv.json", [locomo_sample()]), user_id="ana", agent_id="bot")
        exported = list(source.export(user_id="ana"))
        expected = source.search(query, user_id="ana", agent_id="bot")
    with memory(location) as pg:
        pg.import_records(exported)
        assert isinstance(pg.store, PostgresStore)
        moved = list(pg.export(user_id="ana"))
        got = pg.search(query, user_id="ana", agent_id="bot")
    assert _content(moved) == _content(exported)
    assert [h.context.id for h in got.contexts] == [h.context.id for h in expected.contexts]
    with memory(str(tmp_path / "b.db")) as back:
        back.import_records(moved)
        assert _content(list(back.export(user_id="ana"))) == _content(exported)


def _content(records: list[dict[str, object]]) -> list[dict[str, object]]:
    """Export records without the history entries that each import appends (history is append-only:
    the move itself is a change worth recording); everything else must be identical."""
    return [r for r in records if not (r.get("type") == "history" and r.get("op") == "import")]
