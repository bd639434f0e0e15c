"""Open a store from a path or URL."""

from __future__ import annotations

import re
from pathlib import Path

from anchormem.config import DEFAULT_HOME
from anchormem.errors import ConfigError
from anchormem.registries import STORES
from anchormem.store.protocol import Store
from anchormem.store.sqlite import SQLiteStore

_PG = re.compile(r"^(postgres|postgresql):/")
_ONE_SLASH = re.compile(r"^(postgres|postgresql):/(?!/)")
# A URL scheme (two letters at least, so that a Windows drive such as "C:/" stays a path).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):/")


def is_postgres_url(location: str) -> bool:
    return bool(_PG.match(location))


def sqlite_file(location: str) -> Path | None:
    """The SQLite file ``location`` names, or None (a PostgreSQL URL, an in-memory store, another scheme)."""
    if is_postgres_url(location):
        return None
    if location.startswith("sqlite:///"):
        location = location[len("sqlite:///") :]
    elif _SCHEME.match(location):
        return None
    if location in ("", ":memory:"):
        return None
    return Path(location).expanduser()


def open_store(location: str) -> Store:
    """``location``: a file path, ``sqlite:///path`` (``:memory:`` for a throwaway store), or a
    ``postgresql://user:password@host:port/dbname`` URL (libpq syntax, e.g. ``?host=/socket/dir``), or a URL
    whose scheme a third party's store is named by (:data:`anchormem.registries.STORES`).

    Any other URL scheme is a :class:`ConfigError`. A SQLite file's folder must exist (a mistyped path
    must not make folders), except the default home ``~/.anchormem``, which is created.
    """
    scheme = _SCHEME.match(location)
    name = scheme.group(1) if scheme else "sqlite"  # a plain path is a SQLite file
    if name not in STORES:
        raise ConfigError(
            f"unknown store URL scheme {name!r} in {location!r}: use a file path, sqlite:///path "
            "or postgresql://user:password@host:port/dbname"
        )
    return STORES[name](location)


def open_postgres(location: str) -> Store:
    """A :class:`~anchormem.store.postgres.PostgresStore` at a ``postgresql://`` URL."""
    from anchormem.store.postgres import PostgresStore

    # A URL that went through pathlib lost one slash of "//": put it back.
    return PostgresStore(_ONE_SLASH.sub(lambda m: f"{m.group(1)}://", location, count=1))


def open_sqlite(location: str) -> Store:
    """A :class:`~anchormem.store.sqlite.SQLiteStore` at a file path or ``sqlite:///path``."""
    if location.startswith("sqlite:///"):
        location = location[len("sqlite:///") :]
    elif location.startswith("sqlite:"):
        raise ConfigError(
            f"unknown store URL scheme 'sqlite' in {location!r}: use a file path, sqlite:///path "
            "or postgresql://user:password@host:port/dbname"
        )
    home = DEFAULT_HOME.expanduser()
    return SQLiteStore(location, create_parent=Path(location).expanduser().parent == home)
