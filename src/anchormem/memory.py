"""The facade users call. It wires the parts together and holds no algorithm:
ingest lives in :mod:`anchormem.ingest`, retrieval in :mod:`anchormem.query`."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, overload

from anchormem.closeable import Closeable
from anchormem.config import Settings
from anchormem.embed.protocol import Embedder
from anchormem.errors import InputError, NotFoundError
from anchormem.ingest.messages import as_messages, parse_messages
from anchormem.ingest.pipeline import Progress
from anchormem.ingest.precomputed import load_precomputed
from anchormem.ingest.sources import Conversation, is_locomo, load_conversations, parse_locomo
from anchormem.ingester import Ingester
from anchormem.lifecycle.edit import check_update
from anchormem.lifecycle.locks import WriterLocks
from anchormem.lifecycle.manager import Lifecycle
from anchormem.llm.accounting import Accounting
from anchormem.llm.protocol import LLM, Completion
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
from anchormem.parts import Parts
from anchormem.query.answer import read
from anchormem.query.cache import SnapshotCache
from anchormem.query.retrieve import RECIPES, retrieve
from anchormem.query.snapshot import ScopeSnapshot
from anchormem.scopes import check_query, describe, make_scope
from anchormem.search_filters import TimeBound, make_filters, restrict
from anchormem.store.protocol import Store
from anchormem.validation import check_search

Source = str | Mapping[str, Any] | Sequence[Mapping[str, Any]] | Conversation | Path
"""What ``add`` takes: a plain string (one user message), one message, a list of messages, a
:class:`Conversation`, or a :class:`~pathlib.Path` to a file (LoCoMo, or JSON/JSONL messages)."""
Record = Turn | Context | Fact | Event
RecordKind = Literal["turns", "contexts", "facts", "events"]
RECORD_KINDS: tuple[RecordKind, ...] = ("turns", "contexts", "facts", "events")


class Memory(Closeable):
    """Long-term memory for one store: add conversations, search, answer, inspect, forget.

    Nothing is loaded until it is needed: the embedding model on the first add or
    search, the LLM client on the first call that needs it. Pass ``store``,
    ``embedder`` or ``llm`` to use your own parts (e.g. fakes in tests).

    The facade holds no algorithm; it composes its :class:`~anchormem.parts.Parts` (store,
    embedder, LLM), per-user :class:`~anchormem.lifecycle.locks.WriterLocks`, a
    :class:`~anchormem.query.cache.SnapshotCache`, an :class:`~anchormem.ingester.Ingester`
    and a :class:`~anchormem.lifecycle.manager.Lifecycle`. ``accounting`` sums the LLM use of every
    call in this process; each call also counts its own, and that is what is stored for its scope.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.accounting = Accounting()
        self._parts = Parts(self.settings, store=store, embedder=embedder, llm=llm)
        self._snapshots = SnapshotCache(self._parts)
        locks = WriterLocks()
        self._ingester = Ingester(self._parts, locks, self.accounting)
        self._lifecycle = Lifecycle(self._parts, locks, self._snapshots, self._ingester.rebuild, self._ingester.made_by)

    @classmethod
    def from_env(cls, config_file: str | Path | None = None, **overrides: Any) -> Memory:
        """Settings from the environment and config file (see :meth:`Settings.load`)."""
        return cls(Settings.load(config_file=config_file, **overrides))

    # -- parts -------------------------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self._parts.store

    @property
    def embedder(self) -> Embedder:
        return self._parts.embedder

    @property
    def llm(self) -> LLM | None:
        return self._parts.llm

    # -- ingest ------------------------------------------------------------------------------------------

    def add(
        self,
        source: Source,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        sample: str | None = None,
        facts: str | Path | None = None,
        events: str | Path | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Add messages (or a whole conversation) to a user's memory.

        ``source`` is one of:

        - a list of messages: dicts with ``role``/``content`` (OpenAI's shape, content parts
          included, optional ``name``) or ``speaker``/``text``, and optional ``id``, ``session``,
          ``metadata`` (a JSON object), ``image_caption`` and a time (``timestamp``,
          ``created_at`` or ``time``: ISO 8601, Unix seconds or milliseconds, or free text);
        - one such message dict, or a plain string (one message of role ``user``). A string is
          never read as a file path: pass files as :class:`pathlib.Path`;
        - a :class:`Conversation`, or a :class:`pathlib.Path` to a LoCoMo file or a JSON/JSONL
          message list. A LoCoMo file with several conversations needs ``sample`` (one sample id).

        A message without an ``id`` gets one from its session, speaker, text, time as given and its
        occurrence among identical messages of this call, so sending the same messages again (a
        retry, or a window of recent messages re-sent) adds nothing new; see ``docs/messages.md``.
        New turns of a session continue after the turns already stored in it. ``facts``/``events``
        attach precomputed facts and events instead of extracting them. A re-run resumes
        extraction that failed.
        """
        scope = make_scope(user_id, agent_id, run_id)
        conversation = self._conversation(source, sample)
        pre = load_precomputed(facts, events, sample_id=conversation.name if sample or facts or events else None)
        return self._ingester.add(scope, conversation.turns, pre, progress)

    def _conversation(self, source: Source, sample: str | None) -> Conversation:
        if isinstance(source, Conversation):
            return source
        if isinstance(source, Path):
            conversations = load_conversations(source, sample=sample)
            if len(conversations) != 1:
                names = ", ".join(c.name for c in conversations[:10])
                raise InputError(
                    f"{source} holds {len(conversations)} conversations ({names}); pick one with "
                    "sample=... (CLI: --sample ID), or use add_all"
                )
            return conversations[0]
        if isinstance(source, Mapping) and is_locomo(source):
            return parse_locomo(source, sample=sample)[0]
        return Conversation(name="messages", turns=tuple(parse_messages(as_messages(source))))

    def add_all(
        self,
        path: str | Path,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        facts: str | Path | None = None,
        events: str | Path | None = None,
        progress: Progress | None = None,
    ) -> dict[str, IngestReport]:
        """Add every conversation of a LoCoMo file, each as its own run (``run_id`` = sample id).
        ``path`` may be a string here: this method only reads files."""
        out: dict[str, IngestReport] = {}
        for conv in load_conversations(path):
            pre = load_precomputed(facts, events, sample_id=conv.name)
            out[conv.name] = self._ingester.add(make_scope(user_id, agent_id, conv.name), conv.turns, pre, progress)
        return out

    # -- query -------------------------------------------------------------------------------------------

    def snapshot(self, scope: Scope) -> ScopeSnapshot:
        """The scope's memory as retrieval sees it (cached until the scope changes)."""
        return self._snapshots.get(scope)

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        max_contexts: int | None = None,
        variant: str | None = None,
        include_subscopes: bool = True,
        filters: Mapping[str, Any] | None = None,
        session: str | None = None,
        since: TimeBound | None = None,
        until: TimeBound | None = None,
    ) -> SearchResult:
        """Memories for ``query``: contexts (with their anchor facts) and events, with provenance.

        The scope is a user, an agent (``agent_id`` alone: the agent's own memory), or either narrowed
        by agent and run. A search covers the scope's sub-scopes too: a user's search looks through
        everything stored under that user, its agents' and runs' memories included, and a user's
        agent's search through that agent's runs; ``include_subscopes=False`` looks at the exact scope
        only. Each returned context says which scope it is stored in (``ContextHit.scope``).

        ``k`` is how many facts and events the recipe considers (the ``paper`` recipe maps the top
        ``k`` facts to contexts; every recipe returns at most ``k`` events) and, unless
        ``max_contexts`` is given, also the most contexts returned. Left out, both come from
        the settings (``retrieval.k_facts``, ``k_events``, ``max_contexts``). A scope with no memory
        (e.g. a user's first conversation) gives an empty result, not an error.

        Filters restrict the search to some messages (see :mod:`anchormem.search_filters`):
        ``filters`` is metadata equality (``{"topic": "work"}``: every pair must equal the message's
        ``metadata``; a key no message has gives an empty result), ``session`` a session label,
        ``since``/``until`` a time range on the message time, both inclusive (ISO 8601, Unix seconds
        or milliseconds, or a ``datetime``); messages whose time is unknown never match a time range.
        A context, a window of several turns, is returned when at least one of its turns matches
        every filter; an event only when all its source facts come from such contexts. A value of
        the wrong type raises :class:`InputError` naming the field.
        """
        query = check_query(query)
        check_search(k, max_contexts, variant, RECIPES)
        scope = make_scope(user_id, agent_id, run_id)
        wanted = make_filters(filters, session=session, since=since, until=until)
        snap = self._snapshots.covering(scope, include_subscopes=include_subscopes)
        if snap is None:  # nothing stored for this scope (yet, or any more)
            return SearchResult(query=query, contexts=(), events=())
        settings = self.settings.retrieval
        if k is not None:
            settings = replace(settings, k_facts=k, k_events=k, max_contexts=k)
        if max_contexts is not None:
            settings = replace(settings, max_contexts=max_contexts)
        if variant is not None:
            settings = replace(settings, variant=variant)
        started = time.perf_counter()
        snap = restrict(snap, wanted)
        if not snap.contexts:
            return SearchResult(query=query, contexts=(), events=())
        vector = self.embedder.embed([query])[0]
        result = retrieve(snap, query, vector, settings)
        self.accounting.record("retrieval", Completion(text=""), time.perf_counter() - started)
        return result

    def answer(
        self,
        question: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        variant: str | None = None,
        reader: LLM | None = None,
        include_subscopes: bool = True,
        filters: Mapping[str, Any] | None = None,
        session: str | None = None,
        since: TimeBound | None = None,
        until: TimeBound | None = None,
    ) -> Answer:
        """Answer from memory with the reader LLM (``reader``, else the configured LLM);
        the answer cites the turn ids it drew on. The memories are those :meth:`search` returns for
        the same scope, ``include_subscopes`` and filters. The reader's usage is stored for the scope
        (phase ``answering`` of :meth:`stats`)."""
        llm = reader or self._parts.require_llm("answering")
        memories = self.search(
            question,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            k=k,
            variant=variant,
            include_subscopes=include_subscopes,
            filters=filters,
            session=session,
            since=since,
            until=until,
        )
        call = self.accounting.child()
        try:
            return read(call.wrap(llm, "answering"), question, memories)
        finally:
            used = call.used()
            if used:
                self.store.record_usage(make_scope(user_id, agent_id, run_id), used)

    # -- inspect -------------------------------------------------------------------------------------------

    def turns(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Turn]:
        """Every turn of a memory, in conversation order."""
        return self.store.turns(self._existing(user_id, agent_id, run_id))

    def contexts(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Context]:
        """Every context (3-turn window) of a memory, in conversation order."""
        return self.store.contexts(self._existing(user_id, agent_id, run_id))

    def facts(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Fact]:
        """Every fact (anchor) of a memory."""
        return self.store.facts(self._existing(user_id, agent_id, run_id))

    def events(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Event]:
        """Every event of a memory."""
        return self.store.events(self._existing(user_id, agent_id, run_id))

    @overload
    def records(
        self,
        kind: Literal["turns"],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[Turn]: ...
    @overload
    def records(
        self,
        kind: Literal["contexts"],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[Context]: ...
    @overload
    def records(
        self,
        kind: Literal["facts"],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[Fact]: ...
    @overload
    def records(
        self,
        kind: Literal["events"],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
    ) -> list[Event]: ...
    @overload
    def records(
        self, kind: str, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> Sequence[Record]: ...
    def records(
        self, kind: str, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> Sequence[Record]:
        """The records of one kind named at run time (``turns``, ``contexts``, ``facts`` or ``events``),
        for shells that take the kind as input; code that knows the kind calls :meth:`turns`,
        :meth:`contexts`, :meth:`facts` or :meth:`events`."""
        if kind == "turns":
            return self.turns(user_id=user_id, agent_id=agent_id, run_id=run_id)
        if kind == "contexts":
            return self.contexts(user_id=user_id, agent_id=agent_id, run_id=run_id)
        if kind == "facts":
            return self.facts(user_id=user_id, agent_id=agent_id, run_id=run_id)
        if kind == "events":
            return self.events(user_id=user_id, agent_id=agent_id, run_id=run_id)
        raise InputError(f"unknown kind {kind!r}; choose {', '.join(RECORD_KINDS)}")

    def get(
        self, record_id: str, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> Record:
        """One record by id: a context (``c-…``), fact (``f-…``), event (``e-…``) or turn id."""
        kinds: dict[str, RecordKind] = {"c-": "contexts", "f-": "facts", "e-": "events"}
        kind = kinds.get(record_id[:2], "turns")
        for record in self.records(kind, user_id=user_id, agent_id=agent_id, run_id=run_id):
            if record.id == record_id:
                return record
        raise NotFoundError(f"no {kind[:-1]} {record_id!r} in the memory of {describe(make_scope(user_id, agent_id))}")

    def stats(self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None) -> Stats:
        """Counts of a memory's records and its stored LLM usage per phase (extraction, integration, answering)."""
        scope = self._existing(user_id, agent_id, run_id)
        states = self.store.extraction_states(scope)
        turns = self.store.turns(scope)
        return Stats(
            contexts=len(states),
            facts=len(self.store.facts(scope)),
            events=len(self.store.events(scope)),
            turns=len(turns),
            sessions=len({t.session for t in turns}),
            pending_extractions=sum(s.status == "pending" for s in states),
            failed_extractions=sum(s.status == "failed" for s in states),
            usage=self.store.usage(scope),
        )

    def users(self) -> list[Scope]:
        return self.store.scopes()

    def _existing(self, user_id: str | None, agent_id: str | None, run_id: str | None) -> Scope:
        scope = make_scope(user_id, agent_id, run_id)
        if self.store.version(scope) == 0:
            raise NotFoundError(f"no memory for {describe(scope)}")
        return scope

    # -- lifecycle: edit, forget, history, export, import -----------------------------------------------

    def update(
        self, turn_id: str, text: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> UpdateReport:
        """Replace the text of one stored turn and re-derive what came from it, like a delete of the old
        words and an add of the new ones in place.

        The turn keeps its id, session, position, speaker, time and metadata. The windows that held it
        are superseded with their facts and the events on those facts, cached LLM responses holding
        the old text are forgotten and its bytes scrubbed from the store file; the session is re-cut
        and facts and events are derived from the new text. The history records an ``update`` (counts,
        never the texts). An unknown turn raises :class:`NotFoundError`; text that is empty or too long
        :class:`InputError`; the text it already has changes nothing (``updated`` False).
        """
        turn_id, text = check_update(turn_id, text)
        return self._lifecycle.update(make_scope(user_id, agent_id, run_id), turn_id, text)

    def delete(
        self,
        *,
        user_id: str | None = None,
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
        if sum(x is not None for x in (session, turn, context)) + bool(all) != 1:
            raise InputError("delete needs exactly one target: session, turn, context or all")
        return self._lifecycle.delete(make_scope(user_id, agent_id, run_id), session, turn, context, all)

    def history(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        limit: int | None = None,
    ) -> list[HistoryEntry]:
        """The append-only record of changes to a memory (and its agent/run scopes), oldest first."""
        return self._lifecycle.history(make_scope(user_id, agent_id, run_id), limit)

    def export(
        self, *, user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """A user's memory (every agent/run scope under it unless narrowed) as JSONL-ready records."""
        return self._lifecycle.export(make_scope(user_id, agent_id, run_id))

    def import_records(self, records: Iterable[Mapping[str, Any]]) -> ImportReport:
        """Load an export into empty scopes of this store; validates everything before writing."""
        return self._lifecycle.import_records(records)

    def close(self) -> None:
        self._parts.close()
