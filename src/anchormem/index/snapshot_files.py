"""When a process reads and writes scope snapshot files (:mod:`anchormem.index.snapshot_file`).

- Only for scopes of at least ``RetrievalSettings.snapshot_files`` facts (None: never): below, a load from the store
  takes well under a second. A SQLite store keeps them beside its file; a server store (PostgreSQL) in a folder of
  ``RetrievalSettings.snapshot_dir`` (``~/.anchormem/server-snapshots`` by default) named by a hash of the database's
  address (host, port, database, user; never the password): each machine that serves searches keeps its own, and the
  stamp (the database's token, the scope's version and its nonce in the database's log) decides whether one is used.
- Read when the cache would load a scope whole from the store, if the file's stamp matches the store; a file of an
  older version is brought up to date by the store's log of what each version since added and removed, when none
  of them forgot messages (``anchormem.store.sql.changelog``; a process stopped without closing leaves such a file
  behind).
- Written after such a whole load (in a background thread, which the process waits for at exit, so a first search
  pays the load once and the next process does not), and by :meth:`SnapshotFiles.close` for every big scope this
  process holds at a newer version than its file (the adds of an agent loop, for the next process).
- Removed by :meth:`SnapshotFiles.forget`, for every scope the process deletes from, updates or imports into.

While a file is read, the embedder loads in another thread: the first search needs both.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from anchormem.config import DEFAULT_HOME
from anchormem.index import snapshot_file
from anchormem.index.evolve import changes_since, evolve
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.index.store_rows import StackedRows, StoreRows
from anchormem.model import Scope
from anchormem.parts import Parts
from anchormem.store.capabilities import VersionStamps

log = logging.getLogger(__name__)


class SnapshotFiles:
    """The snapshot files of one memory's store (a no-op where the store or the settings keep none)."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._lock = threading.Lock()
        self._written: dict[Scope, int] = {}  # the version of each scope's file this process wrote or read
        self._writers: list[threading.Thread] = []
        self.read = 0  # snapshots read from files so far

    def _where(self) -> Path | None:
        if self._parts.settings.retrieval.snapshot_files is None:
            return None
        return self._root()

    def _root(self) -> Path | None:
        """What :func:`snapshot_file.folder` places the files beside: the SQLite file, or for a server store a
        name in ``snapshot_dir`` (None: a store in memory, or one this module cannot name)."""
        parts = self._parts
        if parts.store_file is not None:
            return parts.store_file
        url = parts.store_url
        if url is None:
            return None
        home = parts.settings.retrieval.snapshot_dir
        base = Path(home).expanduser() if home else DEFAULT_HOME.expanduser() / "server-snapshots"
        return base / server_name(url)

    def _big(self, snap: ScopeSnapshot) -> bool:
        """A scope big enough for a file, whose vectors the process holds (a scope searched through its HNSW
        index leaves them in the store: :mod:`anchormem.index.ann`)."""
        least = self._parts.settings.retrieval.snapshot_files
        held = not isinstance(snap.fact_vectors, StoreRows | StackedRows)
        return least is not None and held and len(snap.facts) >= least

    def _stamp(self, scope: Scope, version: int, create: bool) -> dict[str, object] | None:
        store = self._parts.store
        token = snapshot_file.token(store, create)
        if token is None:
            return None
        migrations = store.schema_version if isinstance(store, VersionStamps) else 0
        nonce = self._nonce(scope, version, create=True) if create else None  # a reader checks the file's own
        return snapshot_file.stamp(scope, version, nonce, token, self._parts.settings.chunking.chat_chars, migrations)

    def _nonce(self, scope: Scope, version: int, create: bool = False) -> str | None:
        store = self._parts.store
        return store.version_nonce(scope, version, create) if isinstance(store, VersionStamps) else None

    def load(self, scope: Scope, version: int) -> ScopeSnapshot | None:
        """The scope's snapshot at ``version`` from its file, or None (no file, a stale one, or none kept). A file
        of an older version is brought up to date by the changes since (:func:`anchormem.index.evolve.changes_since`:
        this process's journal, else the store's log), if none of them forgot messages."""
        where = self._where()
        if where is None:
            return None
        target = snapshot_file.path_of(where, scope)
        if not target.exists():
            return None
        file_stamp = self._stamp(scope, version, create=False)
        if file_stamp is None:
            return None
        self._warm_embedder()
        found = snapshot_file.load(target, file_stamp, lambda v: self._nonce(scope, v))
        if found is None:
            return None
        at, snap = found
        if at < version:
            changes = changes_since(self._parts.store, scope, at, version)
            if changes is None:  # messages were forgotten since (or the log let it go): the file is of no use
                snapshot_file.discard(target, f"of version {at}, and the store's changes since cannot be applied")
                return None
            snap = evolve(snap, changes)
        with self._lock:
            self._written[scope] = at
            self.read += 1
        return snap

    def _warm_embedder(self) -> None:
        load = getattr(self._parts.embedder, "load", None)
        if callable(load):
            threading.Thread(target=_quietly, args=(load,), name="anchormem-embedder-load", daemon=True).start()

    def keep_later(self, scope: Scope, version: int, snap: ScopeSnapshot) -> None:
        """Write the file of a snapshot just loaded whole, in a background thread (if the scope is big)."""
        if self._where() is None or not self._big(snap):
            return
        writer = threading.Thread(target=self._save, args=(scope, version, snap), name="anchormem-snapshot-file")
        with self._lock:
            self._writers = [w for w in self._writers if w.is_alive()] + [writer]
        writer.start()

    def _save(self, scope: Scope, version: int, snap: ScopeSnapshot) -> None:
        where = self._where()
        if where is None:
            return
        with self._lock:
            if self._written.get(scope, 0) >= version:
                return
        try:
            store = self._parts.store
            if store.version(scope) != version:  # the store moved on: this snapshot is not what it holds
                return
            file_stamp = self._stamp(scope, version, create=True)
            if file_stamp is None or file_stamp["nonce"] is None:  # a version the log does not name
                return
            target = snapshot_file.path_of(where, scope)
            snapshot_file.save(snap, target, file_stamp)
            if store.version(scope) != version:  # a write (a delete?) came meanwhile: not this file
                snapshot_file.remove(where, scope)
                return
            with self._lock:
                self._written[scope] = max(self._written.get(scope, 0), version)
        except Exception as exc:  # a full disk or a read-only folder: searches go on, loading from the store
            log.warning("could not write the snapshot file of %s: %s", scope, exc)

    def forget(self, scope: Scope) -> None:
        """Remove the scope's file (the store no longer holds some of its words)."""
        where = self._root()  # a file an earlier configuration wrote goes too
        if where is None:
            return
        with self._lock:
            self._written.pop(scope, None)
        snapshot_file.remove(where, scope)

    def close(self, held: Iterable[tuple[Scope, int, ScopeSnapshot]]) -> None:
        """Wait for the files being written, then write those of the big scopes held at a newer version."""
        with self._lock:
            writers, self._writers = self._writers, []
        for writer in writers:
            writer.join()
        if self._where() is None:
            return
        for scope, version, snap in held:
            if self._big(snap) and self._written.get(scope, 0) < version:
                self._save(scope, version, snap)


def _quietly(load: object) -> None:
    try:
        load()  # type: ignore[operator]
    except Exception as exc:  # the search that needs the embedder raises it
        log.debug("embedder load in the background failed: %s", exc)


def server_name(url: str) -> str:
    """A server store's name among snapshot folders: a hash of its address without the password or options
    (another password, pool size or timeout names the same database)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    address = [parts.scheme, parts.username or "", (parts.hostname or "").lower(), port or 0, parts.path.lstrip("/")]
    return "pg-" + hashlib.sha256(json.dumps(address).encode()).hexdigest()[:24]
