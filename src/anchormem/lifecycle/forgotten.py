"""Deletes that stay deleted: a turn a delete removed is not stored again when an add re-sends it.

Agents re-send recent history all the time, and a message's id comes from its content (or is the id it was
sent with), so without a record of what was deleted, a re-sent window would bring a forgotten message back.
The record keeps no words: for each deleted turn, an HMAC-SHA256 of its turn id under a secret key made once
per store (``meta`` ``forget_key``, 32 random bytes), in the ``forgotten`` table of its scope. An add skips a
turn whose hash is there and says so in its notes; ``readd=True`` stores it again on purpose (and drops its
hash). See docs/forgetting.md for what this does and does not protect against.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence

from anchormem.model import Scope, Turn
from anchormem.store.protocol import Store

KEY_NAME = "forget_key"


def _key(store: Store, create: bool) -> bytes | None:
    stored = store.get_meta(KEY_NAME)
    if stored is None and create:
        stored = store.meta_once(KEY_NAME, secrets.token_hex(32))
    return bytes.fromhex(stored) if stored else None


def _hashes(key: bytes, turn_ids: Iterable[str]) -> dict[str, str]:
    return {tid: hmac.new(key, tid.encode("utf-8"), hashlib.sha256).hexdigest() for tid in turn_ids}


def remember(store: Store, scope: Scope, turn_ids: Sequence[str]) -> None:
    """Record ``turn_ids`` of ``scope`` as deleted (before the delete runs: a crash in between leaves the turns
    stored and only keeps a re-send from adding them twice)."""
    if turn_ids:
        key = _key(store, create=True)
        assert key is not None
        store.forget(scope, list(_hashes(key, turn_ids).values()))


def split(store: Store, scope: Scope, turns: Sequence[Turn]) -> tuple[list[Turn], list[Turn]]:
    """``(kept, skipped)``: the turns to add, and those a delete removed from ``scope`` before."""
    key = _key(store, create=False)
    if key is None:  # nothing was ever deleted in this store
        return list(turns), []
    hashed = _hashes(key, (t.id for t in turns))
    gone = store.forgotten(scope, list(hashed.values()))
    if not gone:
        return list(turns), []
    kept = [t for t in turns if hashed[t.id] not in gone]
    skipped = [t for t in turns if hashed[t.id] in gone]
    return kept, skipped


def readd(store: Store, scope: Scope, turns: Sequence[Turn]) -> None:
    """Forget that ``turns`` were deleted: they are being added again on purpose."""
    key = _key(store, create=False)
    if key is not None and turns:
        store.unforget(scope, list(_hashes(key, (t.id for t in turns)).values()))


def skipped_note(count: int) -> str:
    many = count != 1
    return (
        f"{count} message{'s' if many else ''} deleted earlier {'were' if many else 'was'} not stored again "
        "(a deleted message stays deleted when a history is re-sent); add with readd=True "
        '(CLI --readd, REST "readd": true) to store it again on purpose'
    )
