"""Retrieval snapshots kept per scope until the scope's stored version changes, and the merged snapshots of the
scopes a search covers (a user and its agents and runs), kept until one of those scopes' versions changes or the
set of scopes does.

When the version moved only by this process's writes (the store's journal, :mod:`anchormem.store.journal`, holds
every change since the cached version), or by other processes' writes that forgot nothing (the store's log,
:mod:`anchormem.store.sql.changelog`, names the rows they added and removed; the added ones are read by id), the
cached snapshot is grown by those changes (:mod:`anchormem.index.evolve`); otherwise (another process deleted or
updated messages, the log let the versions go, or the store keeps none) the scope is loaded again. A forgotten
scope (:meth:`SnapshotCache.forget`) is always loaded again, so nothing of the forgotten words stays in this
process (the lexical vocabulary included). At most ``RetrievalSettings.cached_scopes`` scopes are kept: the one
used least recently is dropped first (with the merged snapshots that hold it), and loaded again when it is next
searched.

A scope loaded whole comes from its snapshot file when the store keeps one that matches
(:mod:`anchormem.index.snapshot_files`): a new process need not rebuild a big memory's indexes."""

from __future__ import annotations

import threading
from collections import OrderedDict

from anchormem._util.gcpause import paused_gc
from anchormem.index import ann
from anchormem.index.evolve import changes_since, evolve
from anchormem.index.merge import merge_snapshots
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.index.snapshot_files import SnapshotFiles
from anchormem.model import Scope
from anchormem.parts import Parts
from anchormem.wire.scopes import covers, no_memory


class SnapshotCache:
    """The scopes' :class:`ScopeSnapshot`, rebuilt when the store's version of the scope moves on."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts
        self._lock = threading.Lock()
        self._snapshots: OrderedDict[Scope, tuple[int, ScopeSnapshot]] = OrderedDict()  # least recent first
        self._merged: dict[Scope, tuple[tuple[tuple[Scope, int], ...], ScopeSnapshot]] = {}
        self._floor: dict[Scope, int] = {}  # the store's version when the scope was last forgotten
        self._growing: dict[Scope, threading.Lock] = {}  # one evolve of a scope at a time (shared row numbers)
        self.loads = 0  # scopes loaded whole so far: a search that saw this move builds the indexes anew
        self.files = SnapshotFiles(parts)

    def get(self, scope: Scope) -> ScopeSnapshot:
        """The scope's memory as retrieval sees it (``NotFoundError`` for a scope with no memory)."""
        version = self._parts.store.version(scope)
        if version == 0:
            raise no_memory(scope.user_id, scope.agent_id, scope.run_id)
        return self._at(scope, version)

    def covering(self, scope: Scope, include_subscopes: bool = True) -> ScopeSnapshot | None:
        """What a search of ``scope`` looks through: the scope and (``include_subscopes``) every stored
        scope under it, merged (:mod:`anchormem.index.merge`); None when none of them holds anything."""
        if not include_subscopes:
            version = self._parts.store.version(scope)
            return self._at(scope, version) if version else None
        versions = tuple(self._parts.store.scope_versions(scope).items())
        if not versions:
            return None
        if len(versions) == 1:
            return self._at(*versions[0])
        with self._lock:
            cached = self._merged.get(scope)
            if cached and cached[0] == versions:
                return cached[1]
        merged = merge_snapshots([(s, self._at(s, v)) for s, v in versions])
        with self._lock:
            self._merged[scope] = (versions, merged)
        return merged

    def _at(self, scope: Scope, version: int) -> ScopeSnapshot:
        """The scope's snapshot at ``version`` (loaded unless the cached one is of that version)."""
        store = self._parts.store
        with self._lock:
            cached = self._snapshots.get(scope)
            if cached:
                self._snapshots.move_to_end(scope)
            if cached and cached[0] == version:
                return cached[1]
        if cached and self._floor.get(scope, 0) <= cached[0] < version:
            changes = changes_since(store, scope, cached[0], version)
            if changes is not None:  # every write since only added rows, or was this process's: apply them
                with self._lock:
                    growing = self._growing.setdefault(scope, threading.Lock())
                with growing:
                    with self._lock:  # another thread may have grown it meanwhile
                        latest = self._snapshots.get(scope)
                    if latest and latest[0] == version:
                        return latest[1]
                    grown = evolve(cached[1], changes)
                    self._keep(scope, version, grown, base=cached[0])
                return grown
        with paused_gc():  # millions of long-lived objects: see anchormem._util.gcpause
            snap = self.files.load(scope, version)
            whole = snap is None
            snap = self._load(scope) if snap is None else self._attach(scope, snap)
        self.loads += 1
        if whole:
            self.files.keep_later(scope, version, snap)
        self._keep(scope, version, snap)
        return snap

    def _attach(self, scope: Scope, snap: ScopeSnapshot) -> ScopeSnapshot:
        """``snap`` given what neither a file nor the fact rows hold: the embedder and the store's turns."""
        store = self._parts.store
        snap.embed_texts = self._parts.embedder.embed
        snap.load_turns = lambda: [(scope, turn) for turn in store.turns(scope)]
        return snap

    def _load(self, scope: Scope) -> ScopeSnapshot:
        if ann.indexed(self._parts, scope):  # a big PostgreSQL scope: its fact matrix stays in the store
            return ann.load(self._parts, scope)
        store = self._parts.store
        facts, fact_vectors = store.fact_matrix(scope)
        events, event_vectors = store.event_matrix(scope)
        contexts = store.contexts(scope)
        snap = ScopeSnapshot(
            contexts=contexts,
            facts=facts,
            fact_vectors=fact_vectors,
            events=events,
            event_vectors=event_vectors,
            window_chars=self._parts.settings.chunking.chat_chars,
            context_scopes=(scope,) * len(contexts),
        )
        return self._attach(scope, snap)

    def _keep(self, scope: Scope, version: int, snap: ScopeSnapshot, base: int | None = None) -> None:
        """Cache ``snap`` unless a newer one is cached, or the scope was forgotten after ``version`` (a load
        that began before a delete must not come back, nor be grown: its lexical index knows forgotten words), or
        ``snap`` was grown from a snapshot of version ``base`` from before the scope was forgotten."""
        with self._lock:
            held = self._snapshots.get(scope)
            floor = self._floor.get(scope, 0)
            fresh = version >= floor and (base is None or base >= floor)
            if fresh and (held is None or held[0] < version):
                self._snapshots[scope] = (version, snap)
                self._snapshots.move_to_end(scope)
            limit = max(1, self._parts.settings.retrieval.cached_scopes)
            while len(self._snapshots) > limit:
                dropped, _ = self._snapshots.popitem(last=False)
                for outer in [s for s in self._merged if covers(s, dropped)]:
                    del self._merged[outer]

    def forget(self, scope: Scope) -> None:
        """Drop what this process holds in memory about the scope: its snapshot, and the query-embedding
        cache (a past query may have quoted words that are now forgotten)."""
        floor = self._parts.store.version(scope)
        self.files.forget(scope)
        with self._lock:
            self._snapshots.pop(scope, None)
            self._floor[scope] = max(self._floor.get(scope, 0), floor)
            for outer in [s for s in self._merged if covers(s, scope)]:
                del self._merged[outer]
        clear = getattr(self._parts.loaded_embedder, "clear", None)
        if callable(clear):
            clear()

    def close(self) -> None:
        """Finish the snapshot files being written and write those of big scopes held at a newer version."""
        with self._lock:
            held = [(scope, version, snap) for scope, (version, snap) in self._snapshots.items()]
        self.files.close(held)
