"""API keys: a JSON file of sha256 hashes, each mapped to the users it may touch.

Raw keys are shown once, when created, and never stored::

    {"version": 1, "keys": [
      {"id": "k-3f9a1c2e", "sha256": "<hex digest of the key>", "users": ["alice", "bob"],
       "admin": false, "note": "support bot", "created": "2025-01-31T10:00:00+00:00"}]}

An ``admin`` key may touch every user. The user ``-`` stands for no user: agents' own memories
(a scope with an ``agent_id`` and no user, reached at ``/v1/users/-/...?agent_id=...``), which a key
may touch when it is ``admin`` or lists ``-`` among its users (``anchormem serve-key add --user -``).
So a REST user id is never ``-``. The file is re-read when it changes, so keys added or revoked with
``anchormem serve-key`` apply without a restart. A file that goes missing or cannot be read fails
closed: no key is valid until it is readable again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from anchormem.errors import ConfigError, InputError, NotFoundError
from anchormem.wire.scopes import NO_USER, NO_USER_IN_PATH

KEY_PREFIX = "amk_"
log = logging.getLogger("anchormem.server")


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    id: str
    sha256: str
    users: tuple[str, ...] = ()
    admin: bool = False
    note: str = ""
    created: str = ""

    def may(self, user_id: str) -> bool:
        """Whether this key may read and change ``user_id``'s memory; ``-`` (or the stored ``""``) is
        agents' own memories, open to keys that list ``-``."""
        return self.admin or (NO_USER_IN_PATH if user_id == NO_USER else user_id) in self.users

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "sha256": self.sha256,
            "users": list(self.users),
            "admin": self.admin,
            "note": self.note,
            "created": self.created,
        }


_FIELDS = {"id": str, "sha256": str, "users": list, "admin": bool, "note": str, "created": str}
_HEX = frozenset("0123456789abcdef")


def read_keys(path: Path) -> list[ApiKey]:
    """The keys of the file, checked strictly: a malformed entry is a :class:`ConfigError` naming it,
    never a guess (``"admin": "false"`` is not false, it is an error), so a broken file fails closed."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(
            f"keys file not found: {path} (create one with: anchormem serve-key add --keys {path} --user USER)"
        ) from exc
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigError(f"keys file {path} cannot be read as JSON: {exc}") from exc
    entries = data.get("keys") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ConfigError(f"keys file {path}: expected an object with a 'keys' list")
    keys = [_entry(path, i, e) for i, e in enumerate(entries, 1)]
    ids = [k.id for k in keys]
    if len(set(ids)) != len(ids):
        raise ConfigError(
            f"keys file {path}: key ids repeat ({', '.join(sorted({i for i in ids if ids.count(i) > 1}))})"
        )
    return keys


def _entry(path: Path, n: int, e: Any) -> ApiKey:
    """Entry ``n`` of the file as a key; every field has its type (``admin`` a JSON boolean)."""
    where = f"keys file {path}: entry {n}"
    if not isinstance(e, dict):
        raise ConfigError(f"{where} is {type(e).__name__}, not an object")
    unknown = sorted(set(e) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{where} has unknown field(s) {', '.join(map(repr, unknown))}")
    for name, kind in _FIELDS.items():
        if name in e and not (isinstance(e[name], kind) and not (kind is not bool and isinstance(e[name], bool))):
            raise ConfigError(f"{where}: {name!r} must be a JSON {_KIND[kind]}, not {json.dumps(e[name])[:40]}")
    digest, users = e.get("sha256"), e.get("users", [])
    if not isinstance(digest, str) or len(digest) != 64 or not set(digest.lower()) <= _HEX:
        raise ConfigError(f"{where} needs 'sha256': the key's sha256 as 64 hex digits")
    if not all(isinstance(u, str) and u.strip() == u and u for u in users):
        raise ConfigError(f"{where}: 'users' must be a list of user ids (non-empty strings, '-' for agents)")
    key_id = e.get("id") or f"k-{digest[:8].lower()}"
    return ApiKey(
        id=key_id,
        sha256=digest.lower(),
        users=tuple(users),
        admin=e.get("admin", False),
        note=e.get("note", ""),
        created=e.get("created", ""),
    )


_KIND = {str: "string", list: "list", bool: "boolean (true or false)"}


def write_keys(path: Path, keys: Sequence[ApiKey]) -> None:
    """Write atomically, readable by the owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    text = json.dumps({"version": 1, "keys": [k.to_dict() for k in keys]}, indent=2) + "\n"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def create_key(path: Path, users: Sequence[str], *, admin: bool = False, note: str = "") -> tuple[str, ApiKey]:
    """Add a new key to the file (created if missing); returns the raw key, shown only now."""
    users = tuple(dict.fromkeys(u.strip() for u in users if u.strip()))
    if not users and not admin:
        raise InputError("a key needs at least one user (--user) or --admin")
    keys = read_keys(path) if path.exists() else []
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        id=f"k-{secrets.token_hex(4)}",
        sha256=hash_key(raw),
        users=users,
        admin=admin,
        note=note,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    write_keys(path, [*keys, key])
    return raw, key


def revoke_key(path: Path, key_id: str) -> ApiKey:
    keys = read_keys(path)
    kept = [k for k in keys if k.id != key_id]
    if len(kept) == len(keys):
        raise NotFoundError(f"no key {key_id!r} in {path}")
    write_keys(path, kept)
    return next(k for k in keys if k.id == key_id)


class KeyRing:
    """The keys in force; re-reads the file when its modification time changes."""

    def __init__(self, path: str | Path | None = None, keys: Sequence[ApiKey] = ()) -> None:
        self.path = Path(path).expanduser() if path is not None else None
        self._by_hash = {k.sha256: k for k in keys}
        self._stamp: tuple[int, int] | None = None
        self._lock = threading.Lock()
        if self.path is not None:
            self._reload()

    @classmethod
    def from_raw(cls, entries: dict[str, Sequence[str]], admin: Sequence[str] = ()) -> KeyRing:
        """In-memory keys (tests, embedding): raw key → users; keys in ``admin`` may touch everyone."""
        return cls(
            keys=[
                ApiKey(id=f"k-{i}", sha256=hash_key(raw), users=tuple(users), admin=raw in admin)
                for i, (raw, users) in enumerate(entries.items())
            ]
        )

    def _reload(self) -> None:
        assert self.path is not None
        try:
            st = self.path.stat()
        except OSError as exc:
            raise ConfigError(f"keys file not found: {self.path}") from exc
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            keys = read_keys(self.path)
            with self._lock:
                self._by_hash = {k.sha256: k for k in keys}
                self._stamp = stamp

    def authenticate(self, raw: str | None) -> ApiKey | None:
        if not raw:
            return None
        if self.path is not None:
            try:
                self._reload()
            except ConfigError as exc:  # fail closed: a revoked key must not live on in a broken file's stead
                with self._lock:
                    if self._by_hash:
                        log.error("no API key is valid until the keys file is readable again: %s", exc)
                    self._by_hash = {}
                    self._stamp = None
                return None
        with self._lock:
            return self._by_hash.get(hash_key(raw))

    def __len__(self) -> int:
        return len(self._by_hash)
