"""Reading the records a memory holds, by scope: every turn, context, fact or event, one by id, and the
counts. :class:`~anchormem.memory.Memory` checks its keyword arguments and makes the scope; changing
records is :class:`~anchormem.lifecycle.manager.Lifecycle`'s."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal

from anchormem.errors import InputError, NotFoundError
from anchormem.model import Scope, Stats
from anchormem.parts import Parts
from anchormem.wire.args import Record
from anchormem.wire.scopes import describe

RecordKind = Literal["turns", "contexts", "facts", "events"]
RECORD_KINDS: tuple[RecordKind, ...] = ("turns", "contexts", "facts", "events")
_ID_PREFIXES: dict[str, RecordKind] = {"c-": "contexts", "f-": "facts", "e-": "events"}


class Records:
    """Reads the records of one store's scopes (see the module docstring)."""

    def __init__(self, parts: Parts) -> None:
        self._parts = parts

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
        store, scope = self._parts.store, self.existing(scope)
        read: dict[str, Callable[[Scope, Sequence[str]], Sequence[Any]]] = {
            "turns": lambda s, ids: store.turns(s, ids=ids),
            "contexts": store.contexts,
            "facts": store.facts,
            "events": store.events,
        }
        for record in read[kind](scope, [record_id]):
            if record.id == record_id:
                return record
        raise NotFoundError(f"no {kind[:-1]} {record_id!r} in the memory of {describe(replace(scope, run_id=None))}")

    def stats(self, scope: Scope) -> Stats:
        scope, store = self.existing(scope), self._parts.store
        counted = store.counts(scope)
        return Stats(
            contexts=counted.contexts,
            facts=counted.facts,
            events=counted.events,
            turns=counted.turns,
            sessions=counted.sessions,
            pending_extractions=counted.pending,
            failed_extractions=counted.failed,
            usage=store.usage(scope),
            ungrounded_facts=counted.ungrounded,
            batch_extractions=counted.batch,
            unlinked_facts=counted.unlinked,
        )

    def existing(self, scope: Scope) -> Scope:
        """``scope``, if anything was ever stored in it, else :class:`NotFoundError`."""
        if self._parts.store.version(scope) == 0:
            raise NotFoundError(f"no memory for {describe(scope)}")
        return scope
