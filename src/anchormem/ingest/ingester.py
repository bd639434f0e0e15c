"""Adding to a memory: the ingest pipeline run under the user's writer lock, with the call's own LLM
usage stored for its scope and the change written to the history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from anchormem.errors import InputError
from anchormem.ingest.pipeline import FactReader, IngestPipeline, Progress
from anchormem.ingest.precomputed import Precomputed
from anchormem.lifecycle import forgotten
from anchormem.lifecycle import history as chronicle
from anchormem.lifecycle.delete import forget_cached
from anchormem.lifecycle.locks import WriterLocks
from anchormem.llm.accounting import Accounting
from anchormem.llm.protocol import LLM
from anchormem.model import IngestReport, Scope, Turn
from anchormem.parts import Parts


@dataclass(frozen=True)
class PendingAdd:
    """An add that was checked and read but has not run: its scope, its turns and any precomputed facts
    and events (:meth:`Memory.prepare_add <anchormem.memory.Memory.prepare_add>`). A shell that decides
    how to run an add (now, or as a background job) reads it first, then hands it to ``add``."""

    scope: Scope
    turns: tuple[Turn, ...]
    precomputed: Precomputed | None = None
    readd: bool = False  # store turns a delete removed before (else they are skipped: anchormem.lifecycle.forgotten)

    def __post_init__(self) -> None:
        if not self.turns:
            raise InputError("nothing to add: the conversation has no turns")


class Ingester:
    """Runs adds and rebuilds for one memory.

    Each call counts its LLM use in an :class:`Accounting` of its own (a child of ``accounting``,
    the process-wide total), so what is stored for a scope is exactly what that call used, however
    many adds of other users run at the same time.
    """

    def __init__(
        self, parts: Parts, locks: WriterLocks, accounting: Accounting, facts: FactReader | None = None
    ) -> None:
        self._parts = parts
        self._facts = facts  # where linking reads the scope's facts and vectors (None: the store)
        self._locks = locks
        self._accounting = accounting

    def add(self, pending: PendingAdd, progress: Progress | None, llm: LLM | None = None) -> IngestReport:
        """Run one add; ``llm`` stands in for the configured LLM (a batch one: ``anchormem.ingest.batch``)."""
        scope, turns, pre = pending.scope, pending.turns, pending.precomputed
        self._parts.check_embedder()
        call = self._accounting.child()
        pipeline = self._pipeline(call, progress, llm)
        report = IngestReport()
        completed = False
        with self._locks.of(scope):
            kept, skipped = forgotten.split(self._parts.store, scope, turns)
            if pending.readd:
                forgotten.readd(self._parts.store, scope, skipped)
            elif skipped:
                if not kept:
                    return IngestReport(notes=[forgotten.skipped_note(len(skipped))])
                turns = tuple(kept)
            try:
                report = pipeline.run(scope, turns, pre)
                if skipped and not pending.readd:
                    report.notes.append(forgotten.skipped_note(len(skipped)))
                completed = True
                if report.turns_added < len(turns):
                    stored = self._parts.store.turns(scope, ids=[t.id for t in turns])
                    report.notes.extend(unchanged_texts(stored, turns))
                return report
            finally:
                self._store_usage(scope, call)
                if not completed or chronicle.changed(report):
                    chronicle.record_add(
                        self._parts.store,
                        scope,
                        report,
                        list(dict.fromkeys(t.session for t in turns)),
                        self.made_by(pre is not None and bool(pre.facts), llm),
                        completed,
                    )

    def resume(self, scope: Scope, llm: LLM, progress: Progress | None = None) -> IngestReport:
        """Derive with ``llm`` what the scope's adds left waiting (facts of contexts whose extraction waits or
        failed, events of facts not yet linked), under the user's lock; recorded in the history as an add of
        no turns when it derived anything."""
        self._parts.check_embedder()
        call = self._accounting.child()
        report = IngestReport()
        completed = False
        with self._locks.of(scope):
            try:
                report = self._pipeline(call, progress, llm).rebuild(scope, ())
                completed = True
                return report
            finally:
                self._store_usage(scope, call)
                if not completed or chronicle.changed(report):
                    chronicle.record_add(self._parts.store, scope, report, [], self.made_by(llm=llm), completed)

    def rebuild(self, scope: Scope, sessions: Sequence[str]) -> IngestReport:
        """Re-cut ``sessions`` and derive what is missing (after a delete); the caller holds the user's lock."""
        call = self._accounting.child()
        try:
            return self._pipeline(call, None).rebuild(scope, sessions)
        finally:
            self._store_usage(scope, call)

    def made_by(self, precomputed: bool = False, llm: LLM | None = None) -> dict[str, object]:
        """The producers of the records an operation derives (for the history); ``llm``: the one it ran with,
        when not the configured one."""
        model = llm.model if llm is not None else self._parts.llm_model
        return chronicle.provenance(model, self._parts.embedder.name, precomputed)

    def _pipeline(self, call: Accounting, progress: Progress | None, given: LLM | None = None) -> IngestPipeline:
        llm = given if given is not None else self._parts.llm
        settings = self._parts.settings
        return IngestPipeline(
            store=self._parts.store,
            embedder=self._parts.embedder,
            graph=settings.graph,
            extract_llm=call.wrap(llm, "extraction") if llm is not None else None,
            integrate_llm=call.wrap(llm, "integration") if llm is not None else None,
            concurrency=settings.llm.concurrency if settings.llm else 1,
            progress=progress or (lambda *_: None),
            chunking=settings.chunking,
            ungrounded=settings.llm.ungrounded_facts if settings.llm else "drop",
            forget_cached=(lambda texts: forget_cached(self._parts.forgetting(), texts)) if llm is not None else None,
            fact_source=self._facts,
        )

    def _store_usage(self, scope: Scope, call: Accounting) -> None:
        used = call.used()
        if used:
            self._parts.store.record_usage(scope, used)


def unchanged_texts(stored: Sequence[Turn], sent: Sequence[Turn]) -> list[str]:
    """A note when messages were sent with the ids of stored turns but other text: an add never changes
    a stored turn (a retry must not rewrite history), :meth:`Memory.update` does."""
    held = {t.id: t.text for t in stored}
    differ = [t.id for t in sent if t.id in held and held[t.id] != t.text]
    if not differ:
        return []
    shown = ", ".join(repr(i) for i in differ[:3]) + (", ..." if len(differ) > 3 else "")
    many = len(differ) != 1
    return [
        f"{len(differ)} message{'s' if many else ''} with the id{'s' if many else ''} of stored turns ({shown}) "
        f"but different text {'were' if many else 'was'} not changed: an add keeps stored turns as they are; "
        "use update to change a turn's text"
    ]
