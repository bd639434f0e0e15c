"""Several processes (here: threads, each with its own connection) opening a fresh PostgreSQL database at
once: the pgvector extension is created by one of them, and the others do not fail. The soak benchmark's
four adders hit this: "the pgvector extension is missing ... and cannot be created" on the losers of the
CREATE EXTENSION race (a unique violation), although the extension then existed."""

from __future__ import annotations

import threading

import psycopg

from anchormem.store.postgres import PostgresStore
from tests.pg_server import PgServer


def test_concurrent_first_opens_all_succeed(pg_server: PgServer) -> None:
    for attempt in range(3):
        url = pg_server.new_database(f"first{attempt}")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DROP EXTENSION IF EXISTS vector")
        errors: list[BaseException] = []
        start = threading.Barrier(6)

        def open_one(url: str = url, start: threading.Barrier = start, errors: list[BaseException] = errors) -> None:
            start.wait()
            try:
                PostgresStore(url).close()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=open_one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pg_server.drop_database(url)
        assert errors == [], errors
