"""The facade users call. It wires the parts together and holds no algorithm:
ingest lives in :mod:`anchormem.ingest`, search in :mod:`anchormem.search`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Unpack

from anchormem._util.closeable import Closeable
from anchormem.answer.answer import read
from anchormem.answer.citations import cite
from anchormem.config import Settings
from anchormem.embed.protocol import Embedder
from anchormem.index.cache import SnapshotCache
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.ingest.batched import BatchImport, BatchIngest
from anchormem.ingest.ingester import Ingester, PendingAdd
from anchormem.ingest.pipeline import Progress
from anchormem.ingest.snapshot_facts import snapshot_facts
from anchormem.ingest.sources import Source, read_source
from anchormem.lifecycle.full_disk import delete_on_full_disk
from anchormem.lifecycle.locks import WriterLocks
from anchormem.lifecycle.manager import Lifecycle
from anchormem.llm.accounting import Accounting
from anchormem.llm.protocol import LLM
from anchormem.model import (
    Answer,
    Context,
    DeleteReport,
    Event,
    Fact,
    HistoryEntry,
    ImportReport,
    IngestReport,
    Scope,
    SearchResult,
    Stats,
    Turn,
    UpdateReport,
)
from anchormem.parts import GivenParts, Parts
from anchormem.records import RECORD_KINDS, RecordKind, Records
from anchormem.search.searcher import Searcher
from anchormem.store.protocol import Store
from anchormem.wire.args import ADD_KEYS, SEARCH_KEYS, AddArgs, Record, RecordsReader, ScopeArgs, SearchArgs
from anchormem.wire.scopes import scope_of
from anchormem.wire.validation import check_bool, check_label

__all__ = ["RECORD_KINDS", "Memory", "PendingAdd", "Record", "RecordKind", "Source"]


class Memory(Closeable):
    """Long-term memory for one store: add conversations, search, answer, inspect, forget.

    Nothing is loaded until it is needed: the embedding model on the first add or
    search, the LLM client on the first call that needs it. Pass ``store``,
    ``embedder`` or ``llm`` to use your own parts (e.g. fakes in tests).

    The facade holds no algorithm (``docs/architecture.md``): it names the scope of a call and hands the call
    to its :class:`~anchormem.parts.Parts`, :class:`~anchormem.ingest.ingester.Ingester` (adds),
    :class:`~anchormem.search.searcher.Searcher` (searches), :class:`~anchormem.records.Records` or
    :class:`~anchormem.lifecycle.manager.Lifecycle` (update, delete, history, export, import). ``accounting``
    sums the LLM use of every call in this process; what a call used is stored for its scope.

    A method that names a memory takes its scope as keywords (:class:`~anchormem.wire.args.ScopeArgs`; ``search``
    and ``answer`` :class:`~anchormem.wire.args.SearchArgs`); a keyword none of them names is a :class:`TypeError`.
    """

    def __init__(self, settings: Settings | None = None, **parts: Unpack[GivenParts]) -> None:
        self.settings = settings or Settings()
        self.accounting = Accounting()
        self._parts = Parts(self.settings, **parts)
        self._snapshots = SnapshotCache(self._parts)
        locks = WriterLocks()
        self._ingester = Ingester(self._parts, locks, self.accounting, snapshot_facts(self._snapshots))
        self._searcher = Searcher(self._parts, self._snapshots, self.accounting)
        self._batch = BatchIngest(self._parts, self._ingester)
        self._records = Records(self._parts)
        self._lifecycle = Lifecycle(self._parts, locks, self._snapshots, self._ingester)

    @classmethod
    def from_env(cls, config_file: str | Path | None = None, **overrides: Any) -> Memory:
        """Settings from the environment and config file (see :meth:`Settings.load`)."""
        return cls(Settings.load(config_file=config_file, **overrides))

    @property
    def store(self) -> Store:
        """The store (the given one, else the settings' ``store_location``, opened on first use)."""
        return self._parts.store

    @property
    def embedder(self) -> Embedder:
        """The embedding model (the given one, else the settings' backend, loaded on first use)."""
        return self._parts.embedder

    @property
    def llm(self) -> LLM | None:
        """The LLM (the given one, else the configured one), or ``None`` when none is configured."""
        return self._parts.llm

    def add(
        self,
        source: Source | PendingAdd,
        *,
        progress: Progress | None = None,
        readd: bool = False,
        batch: bool = False,
        **scope: Unpack[ScopeArgs],
    ) -> IngestReport:
        """Add messages (or a whole conversation) to a user's memory: ``source`` is any :data:`Source`, or a
        :class:`PendingAdd` from :meth:`prepare_add` (which holds its scope: pass no other keyword but ``batch``).
        New turns of a session continue after those stored; a re-run resumes extraction that failed. A message
        a delete removed is not stored again when re-sent (the notes count it) unless ``readd=True``.
        ``batch=True``: the LLM requests wait for :meth:`batch_export` (``docs/batch.md``)."""
        if isinstance(source, PendingAdd):
            if readd or any(v is not None for v in scope.values()):
                raise TypeError("add() of a PendingAdd takes only progress and batch: it holds its scope and input")
            pending = source
        else:
            pending = self.prepare_add(source, readd=readd, **scope)
        return self._batch.add(pending, progress) if batch else self._ingester.add(pending, progress)

    def batch_export(self, path: str | Path, *, part_size: int | None = None) -> list[Path]:
        """Write the LLM requests that wait for a batch answer as an OpenAI Batch API input file (``part_size``:
        ``<stem>.partNNN.jsonl`` files of at most that many lines); the files written (none: nothing waits)."""
        return self._batch.export(path, part_size)

    def batch_import(
        self, path: str | Path, *, progress: Progress | None = None, **scope: Unpack[ScopeArgs]
    ) -> BatchImport:
        """Read a Batch API results file and derive what its answers allow in every memory with work waiting (a
        scope narrows it); unusable lines are reported, never applied; safe to repeat (``docs/batch.md``)."""
        scopes = [self._scope(scope, "batch_import")] if any(v is not None for v in scope.values()) else None
        return self._batch.import_results(path, scopes, progress)

    def prepare_add(self, source: Source, *, max_turns: int | None = None, **options: Unpack[AddArgs]) -> PendingAdd:
        """What :meth:`add` checks and reads before it runs (the same ``source`` and keywords), as a
        :class:`PendingAdd` to hand to ``add`` later (precomputed facts and events may be set on it): for a shell
        that decides from the turn count how to run the add. Invalid input raises :class:`InputError` here,
        before anything is written; ``max_turns`` caps the turns (the service's request limit)."""
        checked = self._scope(options, "add", ADD_KEYS)
        readd = check_bool(options.get("readd", False), "readd", "add")
        return PendingAdd(checked, read_source(source, max_turns=max_turns).turns, None, readd)

    def snapshot(self, scope: Scope) -> ScopeSnapshot:
        """The scope's memory as retrieval sees it (cached until the scope changes)."""
        return self._snapshots.get(scope)

    def search(self, query: str, *, max_contexts: int | None = None, **options: Unpack[SearchArgs]) -> SearchResult:
        """Memories for ``query``: contexts (with their anchor facts) and events, with provenance. What each
        keyword does (the scope and its sub-scopes, ``k``, ``max_contexts``, ``max_chars``, ``trace``, the
        filters) is :class:`~anchormem.wire.args.SearchArgs`'s to say. A scope with no memory gives an empty
        result, not an error; a value of the wrong type raises :class:`InputError` naming the field."""
        return self._searcher.search(query, max_contexts, options)

    def answer(self, question: str, *, reader: LLM | None = None, **options: Unpack[SearchArgs]) -> Answer:
        """Answer from what :meth:`search` returns, with the reader LLM (``reader``, else the configured one),
        citing the turns drawn on (``Answer.citation`` says how they were found); its usage is stored for the
        scope (phase ``answering``)."""
        scope = self._scope(options, "answer", SEARCH_KEYS)
        llm = reader or self._parts.require_llm("answering")
        memories = self.search(question, **options)
        call = self.accounting.child()
        try:
            return cite(read(call.wrap(llm, "answering"), question, memories))
        finally:
            used = call.used()
            if used:
                self.store.record_usage(scope, used)

    def turns(self, **scope: Unpack[ScopeArgs]) -> list[Turn]:
        """Every turn of a memory, in conversation order."""
        return self._records.records("turns", self._scope(scope, "turns"))

    def contexts(self, **scope: Unpack[ScopeArgs]) -> list[Context]:
        """Every context (3-turn window) of a memory, in conversation order."""
        return self._records.records("contexts", self._scope(scope, "contexts"))

    def facts(self, **scope: Unpack[ScopeArgs]) -> list[Fact]:
        """Every fact (anchor) of a memory."""
        return self._records.records("facts", self._scope(scope, "facts"))

    def events(self, **scope: Unpack[ScopeArgs]) -> list[Event]:
        """Every event of a memory."""
        return self._records.records("events", self._scope(scope, "events"))

    @property
    def records(self) -> RecordsReader:
        """``records(kind, **scope)``: the records of a kind named at run time (for shells that take it as input)."""
        return self._records_of

    def _records_of(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Any]:
        return self._records.records(kind, self._scope(scope, "records"))

    def get(self, record_id: str, **scope: Unpack[ScopeArgs]) -> Record:
        """One record by id: a context (``c-…``), fact (``f-…``), event (``e-…``) or turn id."""
        check_label(record_id, "record_id", "get")
        return self._records.get(record_id, self._scope(scope, "get"))

    def stats(self, **scope: Unpack[ScopeArgs]) -> Stats:
        """Counts of a memory's records and its stored LLM usage per phase (extraction, integration, answering)."""
        return self._records.stats(self._scope(scope, "stats"))

    def users(self) -> list[Scope]:
        return self.store.scopes()

    _scope = staticmethod(scope_of)

    def update(self, turn_id: str, text: str, **scope: Unpack[ScopeArgs]) -> UpdateReport:
        """Replace the text of one stored turn and re-derive what came from it, as a delete of the old words
        and an add of the new ones in place (the turn keeps its id, place, speaker, time and metadata; see
        ``docs/forgetting.md``). An unknown turn raises :class:`NotFoundError`, empty or too long text
        :class:`InputError`; the text it already has changes nothing (``updated`` False)."""
        return self._lifecycle.update(self._scope(scope, "update"), turn_id, text)

    def delete(
        self,
        *,
        session: str | None = None,
        turn: str | None = None,
        context: str | None = None,
        all: bool = False,
        **scope: Unpack[ScopeArgs],
    ) -> DeleteReport:
        """Forget one session, turn or context (its turns), or ``all`` of a memory (with only ``user_id``: every
        agent and run of that user); exactly one target. Everything derived from the words goes with them, the
        LLM responses that held them and their bytes in the store file (``docs/forgetting.md``)."""
        where = self._scope(scope, "delete")
        check_bool(all, "all", "delete")
        return delete_on_full_disk(
            self._parts.store_file, lambda: self._lifecycle.delete(where, session, turn, context, all)
        )

    def history(self, *, limit: int | None = None, **scope: Unpack[ScopeArgs]) -> list[HistoryEntry]:
        """The append-only record of changes to a memory (and its agent/run scopes), oldest first."""
        return self._lifecycle.history(self._scope(scope, "history"), limit)

    def export(self, **scope: Unpack[ScopeArgs]) -> Iterator[dict[str, Any]]:
        """A user's memory (every agent/run scope under it unless narrowed) as JSONL-ready records."""
        return self._lifecycle.export(self._scope(scope, "export"))

    def import_records(self, records: Iterable[Mapping[str, Any]]) -> ImportReport:
        """Load an export into empty scopes of this store; validates everything before writing."""
        return self._lifecycle.import_records(records)

    def close(self) -> None:
        self._snapshots.close()
        self._parts.close()
