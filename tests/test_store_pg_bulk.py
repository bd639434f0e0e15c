"""A table filled in one transaction (an import, a first big add) on PostgreSQL: the statements that follow in
that transaction still reach rows by their primary key. Before, the planner's statistics said the new table was
empty, and each update by id scanned the whole scope through its status index (an import of 50,000 turns ran
for more than 15 minutes)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from anchormem.model import Context, Scope, Turn
from anchormem.store.postgres import PostgresStore
from anchormem.store.sql.base import ANALYZE_AFTER
from tests.pg_server import PgServer

SCOPE = Scope("ana")


@pytest.fixture
def store(pg_server: PgServer) -> Iterator[PostgresStore]:
    url = pg_server.new_database("bulk")
    opened = PostgresStore(url)
    yield opened
    opened.close()
    pg_server.drop_database(url)


def _plan(store: PostgresStore) -> str:
    with store._tx() as cur:
        rows = cur.execute(
            "EXPLAIN UPDATE contexts SET status = 'done' WHERE user_id = ? AND agent_id = ? AND run_id = ? AND id = ?",
            ("ana", "", "", "c7"),
        ).fetchall()
    return "\n".join(r[0] for r in rows)


def test_updates_by_id_inside_a_bulk_transaction_use_the_primary_key(store: PostgresStore) -> None:
    n = ANALYZE_AFTER + 200
    turns = [Turn(f"t{i}", str(i // 50), i % 50, "ana", f"message {i}") for i in range(n)]
    contexts = [
        Context(f"c{i}", t.session, t.position, (t.id,), None, f'ana said, "{t.text}"') for i, t in enumerate(turns)
    ]
    with store.transaction(SCOPE):
        assert len(store.add_turns(SCOPE, turns)) == n
        assert len(store.add_contexts(SCOPE, contexts)) == n
        plan = _plan(store)
    assert "contexts_pkey" in plan, plan
    assert len(store.contexts(SCOPE)) == n


def test_a_small_write_runs_no_analyze(store: PostgresStore) -> None:
    turns = [Turn(f"t{i}", "1", i, "ana", f"message {i}") for i in range(3)]
    statements: list[str] = []
    with store.transaction(SCOPE), store._tx() as cur:
        real = cur.execute

        def spy(sql: str, params: object = None) -> object:
            statements.append(sql)
            return real(sql, params)  # type: ignore[arg-type]

        cur.execute = spy  # type: ignore[method-assign]
        store.add_turns(SCOPE, turns)
        cur.execute = real  # type: ignore[method-assign]
    assert not any(s.startswith("ANALYZE") for s in statements)


def _unlinked_plan(store: PostgresStore) -> str:
    with store._tx() as cur:
        rows = cur.execute(
            "EXPLAIN SELECT id FROM facts WHERE user_id = ? AND agent_id = ? AND run_id = ? AND linked = FALSE "
            "ORDER BY seq",
            (
                "ana",
                "",
                "",
            ),
        ).fetchall()
    return "\n".join(r[0] for r in rows)


def test_after_many_facts_are_linked_an_add_finds_the_unlinked_through_their_index(store: PostgresStore) -> None:
    """Facts are analysed when inserted, all unlinked; once linked, the statistics must say so, or each add's
    ``unlinked_facts`` reads the whole table (a 50,000-turn memory: 0.6 s per add)."""
    import numpy as np

    from anchormem.model import Fact
    from anchormem.store.protocol import Extraction

    n = ANALYZE_AFTER + 200
    turns = [Turn(f"t{i}", str(i // 50), i % 50, "ana", f"message {i}") for i in range(n)]
    contexts = [
        Context(f"c{i}", t.session, t.position, (t.id,), None, f'ana said, "{t.text}"') for i, t in enumerate(turns)
    ]
    store.add_turns(SCOPE, turns)
    store.add_contexts(SCOPE, contexts)
    rng = np.random.default_rng(0)
    extractions = [
        Extraction(c.id, [Fact(f"f{i}", c.id, f"ana said message {i}")], rng.standard_normal((1, 8)).astype("float32"))
        for i, c in enumerate(contexts)
    ]
    assert store.save_extractions(SCOPE, extractions) == n
    assert _estimate(_unlinked_plan(store)) >= n // 2  # every fact is unlinked now, and the planner knows it
    store.set_linked(SCOPE, [f"f{i}" for i in range(n)])
    plan = _unlinked_plan(store)
    assert _estimate(plan) < n // 10, plan  # on a big table, an estimate of "all" is a scan of the whole table
    assert store.unlinked_facts(SCOPE) == []


def _estimate(plan: str) -> int:
    """The planner's estimate of the rows the plan's top node returns."""
    found = re.search(r"rows=(\d+)", plan)
    assert found, plan
    return int(found[1])
