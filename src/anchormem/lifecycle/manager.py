"""The forgetting, history and portability half of a memory: update, delete, history, export, import.

The algorithms live beside this module (edit, delete, history, portable); :class:`Lifecycle` checks
the arguments :class:`~anchormem.memory.Memory` does not (the scope is the facade's) and wires the
algorithms to the memory's parts, its writer locks, its snapshot cache and its
:class:`~anchormem.ingest.ingester.Ingester` (which re-derives what the surviving words still support
after a delete or an edit, and names the producers of derived records for the history).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from anchormem.errors import InputError
from anchormem.index.cache import SnapshotCache
from anchormem.lifecycle import delete as forgetting
from anchormem.lifecycle import edit, import_check, portable
from anchormem.lifecycle import history as chronicle
from anchormem.lifecycle.locks import WriterLocks
from anchormem.model import DeleteReport, HistoryEntry, ImportReport, IngestReport, Scope, UpdateReport
from anchormem.parts import Parts
from anchormem.wire.scopes import no_memory


class Rederiver(Protocol):
    """What a change that forgets words asks of the memory's ingester
    (:class:`~anchormem.ingest.ingester.Ingester`, which imports this package: no import back)."""

    def rebuild(self, scope: Scope, sessions: Sequence[str]) -> IngestReport:
        """Re-cut ``sessions`` and derive what is missing; the caller holds the user's lock."""
        ...

    def made_by(self, precomputed: bool = False) -> dict[str, object]:
        """The producers of the records an operation derives (for the history)."""
        ...


@dataclass(frozen=True)
class Lifecycle:
    """update, delete, history, export and import_records of one memory (see :class:`~anchormem.memory.Memory`,
    which names the scope)."""

    _parts: Parts
    _locks: WriterLocks
    _snapshots: SnapshotCache
    _ingester: Rederiver

    def update(self, scope: Scope, turn_id: str, text: str) -> UpdateReport:
        """Replace one turn's text and re-derive its session (see :mod:`anchormem.lifecycle.edit`)."""
        turn_id, text = edit.check_update(turn_id, text)
        with self._locks.of(scope):
            store = self._parts.store
            if store.version(scope) == 0:
                raise no_memory(scope.user_id, scope.agent_id, scope.run_id)
            self._parts.check_embedder()  # the new text's facts are embedded like the stored ones
            rebuild = _Recut(self._snapshots, self._ingester.rebuild)
            try:
                report = edit.update_turn(store, scope, turn_id, text, rebuild, self._parts.forgetting())
            finally:
                rebuild.done(scope)
            if report.updated:
                chronicle.record_update(store, scope, report, self._ingester.made_by())
            return report

    def delete(
        self, scope: Scope, session: str | None, turn: str | None, context: str | None, all: bool
    ) -> DeleteReport:
        """Forget one target of ``scope`` (exactly one of them must be given), or ``all`` of it."""
        if sum(x is not None for x in (session, turn, context)) + bool(all) != 1:
            raise InputError("delete needs exactly one target: session, turn, context or all")
        with self._locks.of(scope):
            if all:
                return self._delete_all(scope)
            return self._delete_target(scope, session, turn, context)

    def _delete_all(self, under: Scope) -> DeleteReport:
        store = self._parts.store
        reports = []
        for scope in forgetting.scopes_under(store, under.user_id, under.agent_id, under.run_id):
            reports.append(forgetting.delete_scope(store, scope, self._parts.forgetting()))
            chronicle.record_delete(store, scope, {"all": True}, reports[-1], {})
            self._snapshots.forget(scope)
        return forgetting.summary(reports)

    def _delete_target(self, scope: Scope, session: str | None, turn: str | None, context: str | None) -> DeleteReport:
        store = self._parts.store
        if store.version(scope) == 0:
            raise no_memory(scope.user_id, scope.agent_id, scope.run_id)
        target, turn_ids = forgetting.resolve(store, scope, session, turn, context)
        rebuild = _Recut(self._snapshots, self._ingester.rebuild)
        try:
            report = forgetting.delete_turns(store, scope, turn_ids, rebuild, self._parts.forgetting())
        finally:
            rebuild.done(scope)
        chronicle.record_delete(store, scope, target, report, self._ingester.made_by())
        return report

    def history(self, scope: Scope, limit: int | None) -> list[HistoryEntry]:
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InputError("limit must be a non-negative integer")
        store = self._parts.store
        entries = store.history(scope, limit)
        if not entries and store.version(scope) == 0:
            forgetting.scopes_under(store, scope.user_id, scope.agent_id, scope.run_id)  # raises NotFoundError
        return entries

    def export(self, scope: Scope) -> Iterator[dict[str, Any]]:
        scopes = forgetting.scopes_under(self._parts.store, scope.user_id, scope.agent_id, scope.run_id)
        name, dim = self._parts.stored_embedder()
        return portable.export_records(self._parts.store, scopes, name, dim)

    def import_records(self, records: Iterable[Mapping[str, Any]]) -> ImportReport:
        plan = portable.parse_records(records)
        stored, stored_dim = self._parts.stored_embedder()
        import_check.check_fits(plan, stored, stored_dim or None, lambda: self._parts.embedder)
        if plan.embedder and stored is None:
            self._parts.check_embedder()
        report = portable.write_plan(self._parts.store, plan)
        for sp in plan.scopes:
            self._snapshots.forget(sp.scope)
        return report


class _Recut:
    """The re-cut after a delete or an update, which first drops what this process holds of the scope (the
    words are gone from the store by then): the snapshot the re-cut loads to link its facts is clean and stays
    for the next search, instead of being loaded twice. ``done`` drops it all the same if the re-cut never ran
    (or failed)."""

    def __init__(self, snapshots: SnapshotCache, rebuild: Callable[[Scope, Sequence[str]], IngestReport]) -> None:
        self._snapshots = snapshots
        self._rebuild = rebuild
        self._clean: set[Scope] = set()

    def __call__(self, scope: Scope, sessions: Sequence[str]) -> IngestReport:
        self._snapshots.forget(scope)
        report = self._rebuild(scope, sessions)
        self._clean.add(scope)
        return report

    def done(self, scope: Scope) -> None:
        if scope not in self._clean:
            self._snapshots.forget(scope)
