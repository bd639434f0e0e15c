"""Batch ingest: an add whose LLM requests go out as OpenAI Batch API files and come back as results files.

The round trip (``docs/batch.md``)::

    memory.add(messages, user_id="maya", batch=True)   # turns and contexts stored, searchable now
    memory.batch_export("round1.jsonl")                # the extraction requests
    memory.batch_import("round1.results.jsonl")        # facts; then the integration requests wait
    memory.batch_export("round2.jsonl")
    memory.batch_import("round2.results.jsonl")        # events: the add is complete

Nothing of the method changes: the add runs the live pipeline with a :class:`~anchormem.llm.batch.BatchLLM`
behind the response cache, so requests, parsing, JSON repair, grounding, ids, embeddings and accounting are
those of a live add (an answered request counts its tokens as spent; a waiting one counts nothing). A
request without an answer raises :class:`~anchormem.llm.batch.BatchPendingError`: its context keeps
provisional anchors (the offline extractor's; :meth:`Memory.stats` counts them in ``batch_extractions``)
and events wait until every context of the memory has its facts (``unlinked_facts``). An import stores the
usable answers (every unusable line is reported by number) and then derives, for each memory with work
waiting, what the answers allow; what it asks next is the next file.

Safe to repeat: an answer is stored once and a second copy counts as ``already`` held; a partial results
file leaves the rest waiting; an interrupted import is finished by importing again. A delete or update
forgets the requests and answers that hold the forgotten words (:func:`anchormem.lifecycle.delete.forget_cached`),
so a results line for them is ``unknown`` and never applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from anchormem.ingest.ingester import Ingester, PendingAdd
from anchormem.ingest.pipeline import Progress
from anchormem.llm.batch import ImportReport
from anchormem.model import IngestReport, Scope
from anchormem.parts import Parts


@dataclass
class BatchImport:
    """What one :meth:`BatchIngest.import_results` did: the results file's report (answers added, lines
    that gave none), what each memory derived from the answers, and how many requests now wait for the next
    file (``waiting``: export them)."""

    results: ImportReport
    derived: dict[Scope, IngestReport] = field(default_factory=dict)
    waiting: int = 0

    def describe(self) -> str:
        lines = [self.results.describe()]
        for scope, report in self.derived.items():
            who = "/".join(x for x in (scope.user_id, scope.agent_id, scope.run_id) if x) or "(agent)"
            added = f"{report.facts_added} facts, {report.events_added} events"
            lines.append(f"{who}: {added}, {report.llm_deferred} requests waiting")
        lines.append(
            f"{self.waiting} requests wait for a batch answer: export them (anchormem batch export)"
            if self.waiting
            else "nothing waits for a batch answer"
        )
        return "\n".join(lines)


class BatchIngest:
    """Adds through batch files for one memory (module docstring)."""

    def __init__(self, parts: Parts, ingester: Ingester) -> None:
        self._parts = parts
        self._ingester = ingester

    def add(self, pending: PendingAdd, progress: Progress | None) -> IngestReport:
        """Store the add's turns and contexts and record its LLM requests for the next batch file."""
        report = self._ingester.add(pending, progress, llm=self._parts.batch_llm())
        if report.llm_deferred:
            report.notes.append(
                f"{report.llm_deferred} LLM requests wait for a batch answer: export them (anchormem batch export), "
                "then import the results file"
            )
        return report

    def export(self, path: str | Path, part_size: int | None = None) -> list[Path]:
        """Write every request that waits for an answer as batch input JSONL (``part_size``: files of at most
        that many lines); returns the files written, none when nothing waits."""
        self._parts.batch_llm()
        return self._parts.batch_store().export(Path(path), part_size=part_size, everything=True)

    def import_results(
        self, path: str | Path, scopes: Sequence[Scope] | None = None, progress: Progress | None = None
    ) -> BatchImport:
        """Store the answers of a results file, then derive what they allow in each memory with work waiting
        (``scopes``: only these)."""
        llm = self._parts.batch_llm()
        batch = self._parts.batch_store()
        out = BatchImport(batch.import_results(Path(path)))
        for scope in scopes if scopes is not None else self._waiting():
            out.derived[scope] = self._ingester.resume(scope, llm, progress)
        out.waiting = len(batch.unanswered())
        return out

    def _waiting(self) -> list[Scope]:
        """The stored memories with contexts awaiting facts or facts awaiting events."""
        store = self._parts.store
        found = []
        for scope in store.scopes():
            counts = store.counts(scope)
            if counts.batch or counts.unlinked or counts.pending or counts.failed:
                found.append(scope)
        return found
