"""The forgetting, history and portability half of a memory: delete, history, export, import.

The algorithms live beside this module (delete, history, portable); :class:`Lifecycle` wires
them to the memory's parts, its writer locks, its snapshot cache, and two callbacks of its
ingest: ``rebuild`` (re-derive what the surviving words still support after a delete) and
``made_by`` (the producers of the derived records, for the history).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from anchormem.errors import InputError
from anchormem.lifecycle import delete as forgetting
from anchormem.lifecycle import history as chronicle
from anchormem.lifecycle import import_check, portable
from anchormem.lifecycle.locks import WriterLocks
from anchormem.model import DeleteReport, HistoryEntry, ImportReport, Scope
from anchormem.parts import Parts
from anchormem.query.cache import SnapshotCache
from anchormem.scopes import make_scope, no_memory


class Lifecycle:
    """delete, history, export and import_records of one memory (see :class:`~anchormem.memory.Memory`)."""

    def __init__(
        self,
        parts: Parts,
        locks: WriterLocks,
        snapshots: SnapshotCache,
        rebuild: forgetting.Rebuild,
        made_by: Callable[[], Mapping[str, Any]],
    ) -> None:
        self._parts = parts
        self._locks = locks
        self._snapshots = snapshots
        self._rebuild = rebuild
        self._made_by = made_by

    def delete(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        session: str | None = None,
        turn: str | None = None,
        context: str | None = None,
        all: bool = False,
    ) -> DeleteReport:
        targets = sum(x is not None for x in (session, turn, context)) + bool(all)
        if targets != 1:
            raise InputError("delete needs exactly one target: session, turn, context or all")
        make_scope(user_id, agent_id, run_id)
        with self._locks.of(user_id):
            if all:
                return self._delete_all(user_id, agent_id, run_id)
            return self._delete_target(Scope(user_id, agent_id, run_id), session, turn, context)

    def _delete_all(self, user_id: str, agent_id: str | None, run_id: str | None) -> DeleteReport:
        store = self._parts.store
        reports = []
        for scope in forgetting.scopes_under(store, user_id, agent_id, run_id):
            reports.append(forgetting.delete_scope(store, scope, self._parts.response_cache()))
            chronicle.record_delete(store, scope, {"all": True}, reports[-1], {})
            self._snapshots.forget(scope)
        return forgetting.summary(reports)

    def _delete_target(self, scope: Scope, session: str | None, turn: str | None, context: str | None) -> DeleteReport:
        store = self._parts.store
        if store.version(scope) == 0:
            raise no_memory(scope.user_id, scope.agent_id, scope.run_id)
        target, turn_ids = forgetting.resolve(store, scope, session, turn, context)
        try:
            report = forgetting.delete_turns(store, scope, turn_ids, self._rebuild, self._parts.response_cache())
        finally:
            self._snapshots.forget(scope)
        chronicle.record_delete(store, scope, target, report, self._made_by())
        return report

    def history(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None, limit: int | None = None
    ) -> list[HistoryEntry]:
        make_scope(user_id, agent_id, run_id)
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InputError("limit must be a non-negative integer")
        store = self._parts.store
        entries = store.history(Scope(user_id, agent_id, run_id), limit)
        if not entries and store.version(Scope(user_id, agent_id, run_id)) == 0:
            forgetting.scopes_under(store, user_id, agent_id, run_id)  # raises NotFoundError
        return entries

    def export(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        make_scope(user_id, agent_id, run_id)
        scopes = forgetting.scopes_under(self._parts.store, user_id, agent_id, run_id)
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
