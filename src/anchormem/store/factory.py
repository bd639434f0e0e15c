"""Open a store from a path or URL."""

from __future__ import annotations

import re

from anchormem.store.protocol import Store
from anchormem.store.sqlite import SQLiteStore

_PG = re.compile(r"^(postgres|postgresql):/")
_ONE_SLASH = re.compile(r"^(postgres|postgresql):/(?!/)")


def is_postgres_url(location: str) -> bool:
    return bool(_PG.match(location))


def open_store(location: str) -> Store:
    """``location``: a file path, ``sqlite:///path`` (``:memory:`` for a throwaway store), or a
    ``postgresql://user:password@host:port/dbname`` URL (libpq syntax, e.g. ``?host=/socket/dir``)."""
    if is_postgres_url(location):
        from anchormem.store.postgres import PostgresStore

        # A URL that went through pathlib lost one slash of "//": put it back.
        return PostgresStore(_ONE_SLASH.sub(lambda m: f"{m.group(1)}://", location, count=1))
    if location.startswith("sqlite:///"):
        location = location[len("sqlite:///") :]
    return SQLiteStore(location, create_parent=True)
