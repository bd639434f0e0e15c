"""What :class:`~anchormem.memory.Memory` does to the records it holds, by scope: read them (turns,
contexts, facts, events, one by id, counts) and change them (update a turn, delete). The facade checks
its keyword arguments and makes the scope; this collaborator checks the rest and reads the store, or
hands the change to :class:`~anchormem.lifecycle.manager.Lifecycle`."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from anchormem.errors import InputError, NotFoundError, StoreFullError
from anchormem.facade_types import Record
from anchormem.lifecycle.edit import check_update
from anchormem.lifecycle.manager import Lifecycle
from anchormem.model import DeleteReport, Scope, Stats, UpdateReport
from anchormem.parts import Parts
from anchormem.scopes import describe
from anchormem.store import reserve

RecordKind = Literal["turns", "contexts", "facts", "events"]
RECORD_KINDS: tuple[RecordKind, ...] = ("turns", "contexts", "facts", "events")
_ID_PREFIXES: dict[str, RecordKind] = {"c-": "contexts", "f-": "facts", "e-": "events"}


class MemoryRecords:
    """Reads and changes the records of one store's scopes (see the module docstring)."""

    def __init__(self, parts: Parts, lifecycle: Lifecycle) -> None:
        self._parts = parts
        self._lifecycle = lifecycle

    # -- inspect -------------------------------------------------------------------------------------------

    def records(self, kind: str, scope: Scope) -> list[Any]:
        """Every record of one kind (``turns``, ``contexts``, ``facts`` or ``events``) of an existing memory."""
        if kind not in RECORD_KINDS:
            raise InputError(f"unknown kind {kind!r}; choose {', '.join(RECORD_KINDS)}")
        store = self._parts.store
        read: dict[str, Callable[[Scope], Sequence[Any]]] = {
            "turns": store.turns,
            "contexts": store.contexts,
            "facts": store.facts,
            "events": store.events,
        }
        return list(read[kind](self.existing(scope)))

    def get(self, record_id: str, scope: Scope) -> Record:
        """One record by id: the id's prefix names its kind (``c-``, ``f-``, ``e-``, else a turn)."""
        kind = _ID_PREFIXES.get(record_id[:2], "turns")
        for record in self.records(kind, scope):
            if record.id == record_id:
                return record
        raise NotFoundError(f"no {kind[:-1]} {record_id!r} in the memory of {describe(replace(scope, run_id=None))}")

    def stats(self, scope: Scope) -> Stats:
        scope, store = self.existing(scope), self._parts.store
        states = store.extraction_states(scope)
        turns = store.turns(scope)
        return Stats(
            contexts=len(states),
            facts=len(store.facts(scope)),
            events=len(store.events(scope)),
            turns=len(turns),
            sessions=len({t.session for t in turns}),
            pending_extractions=sum(s.status == "pending" for s in states),
            failed_extractions=sum(s.status == "failed" for s in states),
            usage=store.usage(scope),
            ungrounded_facts=sum(s.ungrounded for s in states),
        )

    def existing(self, scope: Scope) -> Scope:
        """``scope``, if anything was ever stored in it, else :class:`NotFoundError`."""
        if self._parts.store.version(scope) == 0:
            raise NotFoundError(f"no memory for {describe(scope)}")
        return scope

    # -- change ------------------------------------------------------------------------------------------------

    def update(self, scope: Scope, turn_id: str, text: str) -> UpdateReport:
        turn_id, text = check_update(turn_id, text)
        return self._lifecycle.update(scope, turn_id, text)

    def delete(
        self, scope: Scope, session: str | None, turn: str | None, context: str | None, all: bool
    ) -> DeleteReport:
        if sum(x is not None for x in (session, turn, context)) + bool(all) != 1:
            raise InputError("delete needs exactly one target: session, turn, context or all")
        try:
            return self._lifecycle.delete(scope, session, turn, context, all)
        except StoreFullError as full:
            file = self._parts.store_file
            freed = reserve.release(file) if file is not None else 0
            if not freed:
                raise StoreFullError(nothing_deleted(file)) from full
        try:  # the reserve is back on the filesystem: the same delete again
            report = self._lifecycle.delete(scope, session, turn, context, all)
        except StoreFullError as again:
            raise StoreFullError(nothing_deleted(file)) from again
        report.notes.append(
            f"the disk was full: the delete used the store's reserve ({freed // 1024} KiB), which is set aside "
            "again when the store next opens with room on the disk"
        )
        return report


def nothing_deleted(file: Path | None) -> str:
    """What a delete that a full disk rolled back tells the user."""
    where = f"the disk holding {file}" if file is not None else "the database server's disk"
    free = ""
    if file is not None:
        with suppress(OSError):
            free = f" ({shutil.disk_usage(file.parent).free // 1024} KiB free)"
    return (
        f"nothing was deleted: {where} is full{free}, so the delete was rolled back and the words are still "
        "stored. Free space on that disk (remove other files there, or move the store elsewhere with "
        "anchormem export and import), then run the same delete again"
    )
