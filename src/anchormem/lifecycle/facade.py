"""The forgetting, history and portability half of the :class:`~anchormem.memory.Memory` facade.

The algorithms live in :mod:`anchormem.lifecycle` (delete, history, portable); this mixin only wires
them to the memory's store, LLM cache and snapshot cache.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from anchormem.config import Settings
from anchormem.errors import ConfigError, InputError
from anchormem.lifecycle import delete as forgetting
from anchormem.lifecycle import history as chronicle
from anchormem.lifecycle import portable
from anchormem.llm.accounting import Accounting
from anchormem.model import DeleteReport, HistoryEntry, ImportReport, Scope
from anchormem.scopes import make_scope

if TYPE_CHECKING:
    from anchormem.embed.protocol import Embedder
    from anchormem.ingest.pipeline import IngestPipeline, Progress
    from anchormem.llm.protocol import LLM
    from anchormem.query.snapshot import ScopeSnapshot
    from anchormem.store.protocol import Store


class LifecycleMixin:
    """delete, history, export and import_records for :class:`~anchormem.memory.Memory`."""

    settings: Settings
    accounting: Accounting
    _lock: threading.Lock
    _snapshots: dict[Scope, tuple[int, ScopeSnapshot]]
    _writers: dict[str, threading.RLock]

    if TYPE_CHECKING:

        @property
        def store(self) -> Store: ...

        @property
        def embedder(self) -> Embedder: ...

        @property
        def llm(self) -> LLM | None: ...

        def _pipeline(self, progress: Progress | None = None) -> IngestPipeline: ...

        def _record_usage(self, scope: Scope, before: Mapping[str, Any]) -> None: ...

        def _made_by(self, precomputed: bool = False) -> dict[str, Any]: ...

        def _check_embedder(self) -> None: ...

        def _existing(self, user_id: str, agent_id: str | None, run_id: str | None) -> Scope: ...

    # -- lifecycle: forget, history, export, import -----------------------------------------------------

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
        """Forget one session, turn or context (its turns), or ``all`` of a memory.

        Everything derived from the deleted words goes: their contexts, those contexts'
        facts, events built on those facts (re-formed from the facts that remain), cached
        LLM responses holding the text, and the bytes in the store file. The surviving
        turns of a touched session are re-cut into windows. ``all`` with only ``user_id``
        deletes every agent and run of that user. Exactly one target must be given.
        """
        targets = sum(x is not None for x in (session, turn, context)) + bool(all)
        if targets != 1:
            raise InputError("delete needs exactly one target: session, turn, context or all")
        make_scope(user_id, agent_id, run_id)
        with self._writer(user_id):
            return self._delete(user_id, agent_id, run_id, session, turn, context, all)

    def _delete(
        self,
        user_id: str,
        agent_id: str | None,
        run_id: str | None,
        session: str | None,
        turn: str | None,
        context: str | None,
        all: bool,
    ) -> DeleteReport:
        if all:
            scopes = forgetting.scopes_under(self.store, user_id, agent_id, run_id)
            reports = []
            for scope in scopes:
                reports.append(forgetting.delete_scope(self.store, scope, self._response_cache()))
                chronicle.record_delete(self.store, scope, {"all": True}, reports[-1], {})
                self._forget_snapshot(scope)
            return forgetting.summary(reports)
        scope = self._existing(user_id, agent_id, run_id)
        target, turn_ids = forgetting.resolve(self.store, scope, session, turn, context)
        before = self.accounting.snapshot()
        try:
            report = forgetting.delete_turns(
                self.store,
                scope,
                turn_ids,
                lambda s, sessions: self._pipeline().rebuild(s, sessions),
                self._response_cache(),
            )
        finally:
            self._record_usage(scope, before)
            self._forget_snapshot(scope)
        chronicle.record_delete(self.store, scope, target, report, self._made_by())
        return report

    def history(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None, limit: int | None = None
    ) -> builtins.list[HistoryEntry]:
        """The append-only record of changes to a memory (and its agent/run scopes), oldest first."""
        make_scope(user_id, agent_id, run_id)
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InputError("limit must be a non-negative integer")
        entries = self.store.history(Scope(user_id, agent_id, run_id), limit)
        if not entries and self.store.version(Scope(user_id, agent_id, run_id)) == 0:
            forgetting.scopes_under(self.store, user_id, agent_id, run_id)  # raises NotFoundError
        return entries

    def export(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """A user's memory (every agent/run scope under it unless narrowed) as JSONL-ready records."""
        make_scope(user_id, agent_id, run_id)
        scopes = forgetting.scopes_under(self.store, user_id, agent_id, run_id)
        get = getattr(self.store, "get_meta", None)
        name = get("embedder") if get is not None else None
        dim = get("embedder_dim") if get is not None else None
        return portable.export_records(self.store, scopes, name, int(dim) if dim else 0)

    def import_records(self, records: Iterable[Mapping[str, Any]]) -> ImportReport:
        """Load an export into empty scopes of this store; validates everything before writing."""
        plan = portable.parse_records(records)
        get = getattr(self.store, "get_meta", None)
        stored = get("embedder") if get is not None else None
        if plan.embedder and stored is None and plan.embedder != self.embedder.name:
            raise ConfigError(
                f"the export was embedded with {plan.embedder!r}, this memory uses "
                f"{self.embedder.name!r}; import with the same embedding backend"
            )
        if plan.embedder and stored is not None and plan.embedder != stored:
            raise ConfigError(f"the export was embedded with {plan.embedder!r}, this store with {stored!r}")
        if plan.embedder and stored is None:
            self._check_embedder()
        report = portable.write_plan(self.store, plan)
        for sp in plan.scopes:
            self._forget_snapshot(sp.scope)
        return report

    def _response_cache(self) -> object | None:
        """The LLM response cache to forget deleted text from: the configured one, else the file an
        earlier configuration left next to the store."""
        llm = self.llm
        if llm is not None and hasattr(llm, "forget_containing"):
            return llm
        return self.settings.cache_path

    def _writer(self, user_id: str) -> threading.RLock:
        """The lock that serialises this process's adds and deletes of one user's memory, so a delete
        never lands while an add is between reading the turns and writing what it derived from them
        (which would write back facts, events and cached LLM responses of deleted words)."""
        with self._lock:
            return self._writers.setdefault(user_id, threading.RLock())

    def _forget_snapshot(self, scope: Scope) -> None:
        """Drop what this process holds in memory about the scope: its retrieval snapshot, and the
        query-embedding cache (a past query may have quoted words that are now forgotten)."""
        with self._lock:
            self._snapshots.pop(scope, None)
        clear = getattr(getattr(self, "_embedder", None), "clear", None)
        if callable(clear):
            clear()
