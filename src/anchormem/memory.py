"""The facade users call. It wires the parts together and holds no algorithm:
ingest lives in :mod:`anchormem.ingest`, retrieval in :mod:`anchormem.query`."""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchormem.config import Settings
from anchormem.embed.factory import open_embedder
from anchormem.embed.protocol import Embedder
from anchormem.errors import ConfigError, InputError, LLMNotConfiguredError, NotFoundError
from anchormem.ingest.pipeline import IngestPipeline, Progress
from anchormem.ingest.precomputed import Precomputed, load_precomputed
from anchormem.ingest.sources import Conversation, load_conversations, parse_messages
from anchormem.lifecycle import history as chronicle
from anchormem.lifecycle.facade import LifecycleMixin
from anchormem.llm.accounting import Accounting
from anchormem.llm.factory import open_llm
from anchormem.llm.protocol import LLM, Completion
from anchormem.llm.structured import complete_parsed
from anchormem.model import (
    Answer,
    Context,
    Event,
    Fact,
    IngestReport,
    Scope,
    SearchResult,
    Stats,
    Turn,
)
from anchormem.prompts import answer as answer_prompt
from anchormem.query.render import render_memories
from anchormem.query.retrieve import retrieve
from anchormem.query.snapshot import ScopeSnapshot
from anchormem.scopes import check_query, make_scope
from anchormem.store.factory import open_store
from anchormem.store.protocol import Store

Source = str | Path | Conversation | Sequence[Mapping[str, Any]]


class Memory(LifecycleMixin):
    """Long-term memory for one store: add conversations, search, answer, inspect.

    Nothing is loaded until it is needed: the embedding model on the first add or
    search, the LLM client on the first call that needs it. Pass ``store``,
    ``embedder`` or ``llm`` to use your own parts (e.g. fakes in tests).
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
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self.accounting = Accounting()
        self._snapshots: dict[Scope, tuple[int, ScopeSnapshot]] = {}
        self._lock = threading.Lock()
        self._writers: dict[str, threading.RLock] = {}

    @classmethod
    def from_env(cls, config_file: str | Path | None = None, **overrides: Any) -> Memory:
        """Settings from the environment and config file (see :meth:`Settings.load`)."""
        return cls(Settings.load(config_file=config_file, **overrides))

    # -- parts -------------------------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.settings.store_location)
        return self._store

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = open_embedder(self.settings.embed)
        return self._embedder

    @property
    def llm(self) -> LLM | None:
        if self._llm is None and self.settings.llm is not None:
            self._llm = open_llm(self.settings.llm, self.settings.cache_path)
        return self._llm

    def _require_llm(self, what: str) -> LLM:
        llm = self.llm
        if llm is None:
            raise LLMNotConfiguredError(
                f"{what} needs an LLM: set ANCHORMEM_LLM_BASE_URL and ANCHORMEM_LLM_MODEL "
                "(or --llm-url/--llm-model, or [llm] in the config file)"
            )
        return llm

    def _check_embedder(self) -> None:
        """A store's vectors come from one embedder; refuse to mix them."""
        get = getattr(self.store, "get_meta", None)
        if get is None:
            return
        name = get("embedder")
        if name is None:
            self.store.set_meta("embedder", self.embedder.name)
            self.store.set_meta("embedder_dim", str(self.embedder.dim))
        elif name != self.embedder.name:
            raise ConfigError(
                f"this store was built with embedder {name!r}, not {self.embedder.name!r}; "
                "use the same embedding backend or a new store"
            )

    # -- ingest ------------------------------------------------------------------------------------------

    def add(
        self,
        source: Source,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        sample: str | None = None,
        facts: str | Path | None = None,
        events: str | Path | None = None,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Add a conversation (or part of one) to a user's memory.

        ``source`` is a file (LoCoMo format or a JSON/JSONL message list), a list of
        message dicts, or a :class:`Conversation`. A LoCoMo file with several
        conversations needs ``sample`` (one sample id). ``facts``/``events`` attach
        precomputed facts and events instead of extracting them. Adding the same turns
        again creates nothing new; a re-run resumes extraction that failed.
        """
        scope = make_scope(user_id, agent_id, run_id)
        conversation = self._conversation(source, sample)
        pre = load_precomputed(facts, events, sample_id=conversation.name if sample or facts or events else None)
        return self._ingest(scope, conversation.turns, pre, progress)

    def _conversation(self, source: Source, sample: str | None) -> Conversation:
        if isinstance(source, Conversation):
            return source
        if isinstance(source, (str, Path)):
            conversations = load_conversations(source, sample=sample)
            if len(conversations) != 1:
                names = ", ".join(c.name for c in conversations[:10])
                raise InputError(
                    f"{source} holds {len(conversations)} conversations ({names}); pick one with "
                    "sample=... (CLI: --sample ID), or use add_all"
                )
            return conversations[0]
        if isinstance(source, Sequence):
            return Conversation(name="messages", turns=tuple(parse_messages(list(source))))
        raise InputError(
            f"cannot add a {type(source).__name__}: pass a file path, a list of messages or a Conversation"
        )

    def add_all(
        self,
        path: str | Path,
        *,
        user_id: str,
        agent_id: str | None = None,
        facts: str | Path | None = None,
        events: str | Path | None = None,
        progress: Progress | None = None,
    ) -> dict[str, IngestReport]:
        """Add every conversation of a LoCoMo file, each as its own run (``run_id`` = sample id)."""
        out: dict[str, IngestReport] = {}
        for conv in load_conversations(path):
            pre = load_precomputed(facts, events, sample_id=conv.name)
            out[conv.name] = self._ingest(make_scope(user_id, agent_id, conv.name), conv.turns, pre, progress)
        return out

    def _pipeline(self, progress: Progress | None = None) -> IngestPipeline:
        llm = self.llm
        return IngestPipeline(
            store=self.store,
            embedder=self.embedder,
            graph=self.settings.graph,
            extract_llm=self.accounting.wrap(llm, "extraction") if llm is not None else None,
            integrate_llm=self.accounting.wrap(llm, "integration") if llm is not None else None,
            concurrency=self.settings.llm.concurrency if self.settings.llm else 1,
            progress=progress or (lambda *_: None),
        )

    def _made_by(self, precomputed: bool = False) -> dict[str, Any]:
        llm = self.llm
        return chronicle.provenance(llm.model if llm is not None else None, self.embedder.name, precomputed)

    def _ingest(
        self, scope: Scope, turns: Sequence[Turn], pre: Precomputed | None, progress: Progress | None
    ) -> IngestReport:
        if not turns:
            raise InputError("nothing to add: the conversation has no turns")
        self._check_embedder()
        before = self.accounting.snapshot()
        pipeline = self._pipeline(progress)
        report = IngestReport()
        completed = False
        with self._writer(scope.user_id):
            try:
                report = pipeline.run(scope, turns, pre)
                completed = True
                return report
            finally:
                self._record_usage(scope, before)
                if not completed or chronicle.changed(report):
                    chronicle.record_add(
                        self.store,
                        scope,
                        report,
                        list(dict.fromkeys(t.session for t in turns)),
                        self._made_by(pre is not None and bool(pre.facts)),
                        completed,
                    )

    def _record_usage(self, scope: Scope, before: Mapping[str, Any]) -> None:
        after = self.accounting.snapshot()
        delta = {}
        for phase, usage in after.items():
            d = usage.since(before.get(phase))
            if d.calls or d.failed_calls:
                delta[phase] = d
        if delta:
            self.store.record_usage(scope, delta)

    # -- query -------------------------------------------------------------------------------------------

    def snapshot(self, scope: Scope) -> ScopeSnapshot:
        """The scope's memory as retrieval sees it (cached until the scope changes)."""
        version = self.store.version(scope)
        if version == 0:
            raise NotFoundError(
                f"no memory for user {scope.user_id!r}"
                + (f" (agent {scope.agent_id!r})" if scope.agent_id else "")
                + (f" (run {scope.run_id!r})" if scope.run_id else "")
            )
        with self._lock:
            cached = self._snapshots.get(scope)
            if cached and cached[0] == version:
                return cached[1]
        facts, fact_vectors = self.store.fact_matrix(scope)
        events, event_vectors = self.store.event_matrix(scope)
        snap = ScopeSnapshot(
            contexts=self.store.contexts(scope),
            facts=facts,
            fact_vectors=fact_vectors,
            events=events,
            event_vectors=event_vectors,
            embed_texts=self.embedder.embed,
        )
        with self._lock:
            self._snapshots[scope] = (version, snap)
        return snap

    def search(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        max_contexts: int | None = None,
        variant: str | None = None,
    ) -> SearchResult:
        """Memories for ``query``: contexts (with their anchor facts) and events, with provenance."""
        query = check_query(query)
        snap = self.snapshot(make_scope(user_id, agent_id, run_id))
        settings = self.settings.retrieval
        if k is not None:
            settings = replace(settings, k_facts=k, k_events=k)
        if max_contexts is not None:
            settings = replace(settings, max_contexts=max_contexts)
        if variant is not None:
            settings = replace(settings, variant=variant)
        started = time.perf_counter()
        vector = self.embedder.embed([query])[0]
        result = retrieve(snap, query, vector, settings)
        self.accounting.record("retrieval", Completion(text=""), time.perf_counter() - started)
        return result

    def answer(
        self,
        question: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        variant: str | None = None,
        reader: LLM | None = None,
    ) -> Answer:
        """Answer from memory with the reader LLM (``reader``, else the configured LLM);
        the answer cites the turn ids it drew on."""
        llm = reader or self._require_llm("answering")
        memories = self.search(question, user_id=user_id, agent_id=agent_id, run_id=run_id, k=k, variant=variant)
        reader = self.accounting.wrap(llm, "answering")
        prompt = answer_prompt.build(render_memories(memories, with_turn_ids=True), question)
        text, cited = complete_parsed(reader, prompt, answer_prompt.parse)
        known = set(memories.turn_ids)
        cited_known = tuple(t for t in dict.fromkeys(cited) if t in known)
        return Answer(question=question, text=text, cited_turn_ids=cited_known, memories=memories, model=llm.model)

    # -- inspect -------------------------------------------------------------------------------------------

    def list(
        self, kind: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> Sequence[Turn | Context | Fact | Event]:
        """All ``turns``, ``contexts``, ``facts`` or ``events`` of a user's memory."""
        scope = self._existing(user_id, agent_id, run_id)
        if kind == "turns":
            return self.store.turns(scope)
        if kind == "contexts":
            return self.store.contexts(scope)
        if kind == "facts":
            return self.store.facts(scope)
        if kind == "events":
            return self.store.events(scope)
        raise InputError(f"unknown kind {kind!r}; choose turns, contexts, facts or events")

    def contexts(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> builtins.list[Context]:
        return self.store.contexts(self._existing(user_id, agent_id, run_id))

    def facts(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> builtins.list[Fact]:
        return self.store.facts(self._existing(user_id, agent_id, run_id))

    def events(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> builtins.list[Event]:
        return self.store.events(self._existing(user_id, agent_id, run_id))

    def get(
        self, record_id: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> Turn | Context | Fact | Event:
        """One record by id: a context (``c-…``), fact (``f-…``), event (``e-…``) or turn id."""
        scope = self._existing(user_id, agent_id, run_id)
        kinds = {"c-": "contexts", "f-": "facts", "e-": "events"}
        kind = kinds.get(record_id[:2], "turns")
        for record in self.list(kind, user_id=scope.user_id, agent_id=agent_id, run_id=run_id):
            if record.id == record_id:
                return record
        raise NotFoundError(f"no {kind[:-1]} {record_id!r} in the memory of user {user_id!r}")

    def stats(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> Stats:
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

    def users(self) -> builtins.list[Scope]:
        return self.store.scopes()

    def _existing(self, user_id: str, agent_id: str | None, run_id: str | None) -> Scope:
        scope = make_scope(user_id, agent_id, run_id)
        if self.store.version(scope) == 0:
            raise NotFoundError(
                f"no memory for user {user_id!r}"
                + (f" (agent {agent_id!r})" if agent_id else "")
                + (f" (run {run_id!r})" if run_id else "")
            )
        return scope

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
