"""The idempotency records of the SQL store: a write request's key, what its body was, and the response it
got, so that a retry with the same key is answered from here instead of running again.

Functions take a :class:`~anchormem.store.sql.dialect.Cursor` inside the caller's transaction;
:class:`~anchormem.store.sql.core.SQLStore` delegates to them. A claim inserts the record (the table's key is
``(owner, key)``), so of two requests with one key, in any processes, exactly one claims it.
"""

from __future__ import annotations

from anchormem.store.protocol import SavedRequest
from anchormem.store.sql.dialect import Cursor


def claim(
    cur: Cursor, owner: str, key: str, fingerprint: str, expired: float, abandoned: float, now: float, cap: int
) -> SavedRequest | None:
    """Remove records created before ``expired`` and unanswered claims created before ``abandoned``, then
    claim the key (None) or return its record."""
    cur.execute(
        "DELETE FROM requests WHERE created < ? OR (response IS NULL AND created < ?)",
        (expired, abandoned),
    )
    insert = cur.dialect.insert("requests (owner, key, fingerprint, response, created) VALUES (?,?,?,NULL,?)")
    if cur.execute(insert, (owner, key, fingerprint, now)).rowcount:
        cur.execute(  # the owner's oldest answered records beyond the cap go
            "DELETE FROM requests WHERE owner = ? AND response IS NOT NULL AND created < "
            "(SELECT created FROM requests WHERE owner = ? ORDER BY created DESC LIMIT 1 OFFSET ?)",
            (owner, owner, cap),
        )
        return None
    row = cur.execute(
        "SELECT fingerprint, response, created FROM requests WHERE owner = ? AND key = ?", (owner, key)
    ).fetchone()
    return SavedRequest(fingerprint=row[0], response=row[1], created=float(row[2]))


def finish(cur: Cursor, owner: str, key: str, response: str) -> None:
    cur.execute("UPDATE requests SET response = ? WHERE owner = ? AND key = ?", (response, owner, key))


def release(cur: Cursor, owner: str, key: str) -> None:
    cur.execute("DELETE FROM requests WHERE owner = ? AND key = ? AND response IS NULL", (owner, key))
