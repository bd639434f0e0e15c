"""Open a store from a path or URL."""

from __future__ import annotations

from anchormem.errors import ConfigError
from anchormem.store.sqlite import SQLiteStore


def open_store(location: str) -> SQLiteStore:
    """``location``: a file path or ``sqlite:///path`` (``:memory:`` for a throwaway store)."""
    if location.startswith(("postgres://", "postgresql://")):
        raise ConfigError("PostgreSQL stores are not available in this version; use a SQLite path")
    if location.startswith("sqlite:///"):
        location = location[len("sqlite:///"):]
    return SQLiteStore(location)
