"""A PostgreSQL store heals: a connection the server drops is replaced, the next calls succeed, and
/v1/health reports a database that cannot be reached (503 ``store_unavailable``) and its return."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import StoreError
from anchormem.memory import Memory
from anchormem.model import Scope, Turn
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from anchormem.store.postgres import PostgresStore
from tests.pg_server import PgServer

A = Scope("a")
KEYS = KeyRing.from_raw({"key-alice": ["alice"]})
ALICE = {"Authorization": "Bearer key-alice"}


@pytest.fixture
def url(pg_server: PgServer) -> Iterator[str]:
    url = pg_server.new_database("heal")
    yield url
    for attempt in (1, 2):  # a server that just dropped sessions by the dozen may drop this one too
        try:
            _admin(pg_server, f"ALTER DATABASE {_name(url)} ALLOW_CONNECTIONS true")
            pg_server.drop_database(url)
            return
        except Exception:
            if attempt == 2:
                raise
            time.sleep(1)


def _name(url: str) -> str:
    return url.split("?", 1)[0].rsplit("/", 1)[1]


def _admin(server: PgServer, sql: str) -> list[tuple[object, ...]]:
    import psycopg

    with psycopg.connect(server.url, autocommit=True) as conn:
        cur = conn.execute(sql)
        return list(cur.fetchall()) if cur.description else []


def _terminate(server: PgServer, url: str) -> int:
    """Drop every server connection to the database (as an operator or a failover would); returns how many."""
    rows = _admin(
        server,
        f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{_name(url)}' "
        "AND pid <> pg_backend_pid()",
    )
    return sum(1 for (done,) in rows if done)


def _turn(i: int) -> Turn:
    return Turn(id=f"D1:{i}", session="1", position=i, speaker="X", text=f"hello {i}")


def test_killed_connections_are_replaced_and_the_next_calls_succeed(pg_server: PgServer, url: str) -> None:
    store = PostgresStore(url, connect_timeout=5)
    try:
        store.add_turns(A, [_turn(1)])
        for round_ in range(3):  # killed again and again, mid-run
            assert _terminate(pg_server, url) >= 1
            assert [t.id for t in store.turns(A)] == [f"D1:{i}" for i in range(1, round_ + 2)]  # a read
            assert store.add_turns(A, [_turn(round_ + 2)]) == [_turn(round_ + 2)]  # a write
            store.ping()
        assert _terminate(pg_server, url) >= 1
        assert store.add_turns(A, [_turn(9)]) == [_turn(9)]  # a write first after the kill
        assert store.version(A) > 0
    finally:
        store.close()


def test_health_reports_the_database_and_requests_recover(pg_server: PgServer, url: str) -> None:
    store = PostgresStore(url, connect_timeout=1)
    settings = Settings.load(env={}, store=url, embed__backend="hash")
    with Memory(settings, store=store, embedder=HashEmbedder()) as mem:
        mem.add([{"speaker": "Ana", "text": "my cat is called Tom"}], user_id="alice")
        with TestClient(create_app(mem, KEYS)) as client:
            assert client.get("/v1/health").status_code == 200
            _terminate(pg_server, url)
            found = client.post("/v1/users/alice/search", json={"query": "cat"}, headers=ALICE)
            assert found.status_code == 200, found.text
            # the database stops taking connections and every session is dropped: as good as down
            _admin(pg_server, f"ALTER DATABASE {_name(url)} ALLOW_CONNECTIONS false")
            _terminate(pg_server, url)
            down = client.get("/v1/health")
            assert down.status_code == 503 and down.json()["error"]["code"] == "store_unavailable"
            with pytest.raises(StoreError, match="does not answer"):
                mem.store.ping()
            _admin(pg_server, f"ALTER DATABASE {_name(url)} ALLOW_CONNECTIONS true")
            assert _healthy_again(client)  # the pool reconnects with backoff: soon, not at once
            stats = client.get("/v1/users/alice/stats", headers=ALICE)
            assert stats.status_code == 200 and stats.json()["turns"] == 1


def _healthy_again(client: TestClient, bound: float = 120.0) -> bool:
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if client.get("/v1/health").status_code == 200:
            return True
        time.sleep(0.2)
    return False


def test_a_read_retries_once_on_a_broken_connection(pg_server: PgServer, url: str) -> None:
    """The pool's check runs when a connection is taken; a connection that breaks after it (between the
    check and the query) fails the read once, and the read runs again on a fresh connection."""
    store = PostgresStore(url, connect_timeout=5)
    try:
        store.set_meta("embedder_dim", "4")
        pool = store._conn.pool  # type: ignore[attr-defined]
        with pool.connection() as held:  # the connection the next read will get: kill it after the check
            pid = held.info.backend_pid
        original = pool._check

        def check_then_kill(conn: object) -> None:
            original(conn)
            _admin(pg_server, f"SELECT pg_terminate_backend({pid})")

        pool._check = check_then_kill
        try:
            assert store.get_meta("embedder_dim") == "4"
        finally:
            pool._check = original
        assert np.asarray(store.fact_matrix(A)[1]).shape == (0, 4)
    finally:
        store.close()
