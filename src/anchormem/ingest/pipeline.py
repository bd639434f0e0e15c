"""The ingest pipeline: turns → contexts → facts → vectors → store → clusters → events.

Each step commits before the next begins, so an interruption (a dead LLM, a crash)
loses nothing already done: turns and contexts are stored first; a context is
marked done in the same transaction that stores its facts; a re-run continues with
the contexts still pending or failed and with the events not yet written.

Growth is incremental: only the windows of the sessions touched are re-cut
(:mod:`anchormem.ingest.windows`), facts are extracted only for contexts not yet done,
and clusters form only around the facts not yet linked (new facts, and facts whose event
was deleted); their neighbours may be any fact. An add asks the store only about what it
touches: the touched sessions' turns and windows, the contexts still to extract (those it
cut are passed on, not read again), the turns they hold, the events its clusters would make.

Batch files (:class:`~anchormem.llm.batch.BatchLLM`): a request without an answer yet raises
:class:`~anchormem.llm.batch.BatchPendingError`. A context whose extraction waits keeps provisional
anchors (the offline extractor's, status ``batch``: searchable, never part of an event) until a later run
gets its answer and replaces them. Events wait until no context of the scope awaits its facts, so the
clusters are those a live add forms; a cluster whose integration waits stays unlinked for the next run.

Answers are stored in the order of the requests, not the order the calls finish
(:func:`~anchormem.ingest.parallel.in_order`): the facts' order decides which seed of two mutual neighbours
forms their cluster, and so the order of its excerpts, and how their embeddings are batched; a rebuild from
the same answers asks nothing again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypeVar

import numpy as np

from anchormem.config import ChunkSettings, GraphSettings
from anchormem.embed.protocol import Embedder
from anchormem.errors import LLMError, LLMUnavailableError
from anchormem.ingest.extract import extract_offline, extract_with_llm, make_facts
from anchormem.ingest.grounding import ground
from anchormem.ingest.integrate import attach_events, extractive_event, integrate_with_llm, joins_apart, mean_vectors
from anchormem.ingest.link import Cluster, LinkFacts, build_clusters, change_probes
from anchormem.ingest.parallel import in_order
from anchormem.ingest.precomputed import Precomputed
from anchormem.ingest.windows import Known, placed, rechunk
from anchormem.llm.batch import BatchPendingError
from anchormem.llm.protocol import LLM
from anchormem.model import Context, Event, Fact, FactSource, IngestReport, Scope, Turn
from anchormem.store.protocol import Extraction, Store

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)``."""
FactReader = Callable[[Scope], LinkFacts]
"""The scope's facts for linking (:class:`~anchormem.ingest.link.LinkFacts`): e.g. the snapshot retrieval holds."""

SAVE_EVERY = 16  # LLM extractions buffered before one store transaction
EMBED_BATCH = 512


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@dataclass
class IngestPipeline:
    store: Store
    embedder: Embedder
    graph: GraphSettings
    extract_llm: LLM | None = None  # None: the offline extractor
    integrate_llm: LLM | None = None  # None: extractive events
    concurrency: int = 4
    progress: Progress = _no_progress
    chunking: ChunkSettings = field(default_factory=ChunkSettings)
    # drops cached LLM exchanges holding these texts: an extraction answered for a context that another
    # process deleted meanwhile must not stay in the response cache (None: nothing is cached)
    forget_cached: Callable[[Sequence[str]], object] | None = None
    ungrounded: str = "drop"  # what to do with LLM facts their context does not support (ingest.grounding)
    # where linking finds the neighbours of new facts: the in-process snapshot (query.cache), grown by this
    # add's writes, instead of the whole fact matrix read from the store (None: the store)
    fact_source: FactReader | None = None
    _ungrounded: dict[str, int] = field(default_factory=dict, init=False, repr=False)  # context id -> count

    def run(self, scope: Scope, turns: Sequence[Turn], pre: Precomputed | None = None) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        try:
            last = self.store.last_turn(scope)  # read before this add's turns (see ingest.windows)
            new, held = placed(self.store, scope, turns)
            added = self.store.add_turns(scope, new)
            report.turns_added = len(added)
            for t in added:  # the sessions' stored turns now, in order (the store appends)
                held[t.session].append(t)
            known = rechunk(self.store, scope, list(held), report, self.chunking, held, last)
            self._extract(scope, pre, report, known)
            self._link(scope, pre, report)
        finally:
            report.seconds = time.perf_counter() - started
        return report

    def rebuild(self, scope: Scope, sessions: Sequence[str] = ()) -> IngestReport:
        """Re-cut ``sessions`` from the turns that remain, then extract and link what is missing
        (after a delete, or to finish work an interrupted run left)."""
        started = time.perf_counter()
        report = IngestReport()
        try:
            known = rechunk(self.store, scope, sessions, report, self.chunking)
            self._extract(scope, None, report, known)
            self._link(scope, None, report)
        finally:
            report.seconds = time.perf_counter() - started
        return report

    # -- steps -------------------------------------------------------------------------------------------

    def _extract(self, scope: Scope, pre: Precomputed | None, report: IngestReport, known: Known) -> None:
        states = self.store.extraction_states(scope, status=("pending", "failed", "batch"))
        if not states:
            return
        failed_before = {s.context_id for s in states if s.status == "failed"}
        in_batch = {s.context_id for s in states if s.status == "batch"}
        missing = [s.context_id for s in states if s.context_id not in known.contexts]
        if missing:
            known.contexts.update((c.id, c) for c in self.store.contexts(scope, missing))
        todo = [known.contexts[s.context_id] for s in states if s.context_id in known.contexts]
        given = pre.facts if pre else {}
        packed = [c for c in todo if not c.offsets and c.turn_ids in given]  # a passage is no precomputed window
        rest = [c for c in todo if c.offsets or c.turn_ids not in given]
        try:
            if packed:
                self._save_direct(scope, [(c, given[c.turn_ids]) for c in packed], "pack", report)
            if rest and self.extract_llm is None:
                turns = self._turns_of(scope, rest, known)
                self._save_direct(scope, [(c, extract_offline(c, turns)) for c in rest], "offline", report)
            elif rest:
                waiting = self._extract_llm(scope, rest, report)
                fresh = [c for c in waiting if c.id not in in_batch]  # the others hold their anchors already
                if fresh:
                    turns = self._turns_of(scope, fresh, known)
                    anchors = [(c, extract_offline(c, turns)) for c in fresh]
                    self._save_direct(scope, anchors, "provisional", report, status="batch")
        finally:
            if failed_before:
                now = self.store.extraction_states(scope, sorted(failed_before), status=("done",))
                report.extractions_recovered += len(now)

    def _turns_of(self, scope: Scope, contexts: Sequence[Context], known: Known) -> dict[str, Turn]:
        """The turns the contexts hold, by id: those already read, and the others read now."""
        wanted = dict.fromkeys(tid for c in contexts for tid in c.turn_ids)
        missing = [tid for tid in wanted if tid not in known.turns]
        if missing:
            known.turns.update((t.id, t) for t in self.store.turns(scope, ids=missing))
        return {tid: known.turns[tid] for tid in wanted if tid in known.turns}

    def _save_direct(
        self,
        scope: Scope,
        items: Sequence[tuple[Context, Sequence[str]]],
        source: FactSource,
        report: IngestReport,
        status: str = "done",
    ) -> None:
        done = 0
        for start in range(0, len(items), EMBED_BATCH // 4):
            batch = [(c, make_facts(c, texts, source)) for c, texts in items[start : start + EMBED_BATCH // 4]]
            added = self._save(scope, batch, status)
            if status == "done":
                report.facts_added += added
            done += len(batch)
            self.progress("facts", done, len(items))

    def _save(self, scope: Scope, batch: Sequence[tuple[Context, list[Fact]]], status: str = "done") -> int:
        texts = [f.text for _, facts in batch for f in facts]
        vectors = self._embed(texts)
        out: list[Extraction] = []
        row = 0
        for context, facts in batch:
            bad = self._ungrounded.pop(context.id, 0)
            out.append(Extraction(context.id, facts, vectors[row : row + len(facts)], ungrounded=bad, status=status))
            row += len(facts)
        return self.store.save_extractions(scope, out)

    def _save_extracted(self, scope: Scope, batch: Sequence[tuple[Context, list[Fact]]]) -> int:
        """Save what the LLM extracted; for contexts deleted meanwhile (the store skips their facts), forget
        the cached exchanges that hold their words."""
        added = self._save(scope, batch)
        if self.forget_cached is not None:
            held = {c.id for c in self.store.contexts(scope, [c.id for c, _ in batch])}
            gone = [c.text for c, _ in batch if c.id not in held]
            if gone:
                self.forget_cached(gone)
        return added

    def _extract_llm(self, scope: Scope, todo: Sequence[Context], report: IngestReport) -> list[Context]:
        """Extract with the LLM; returns the contexts whose request waits for a batch answer."""
        assert self.extract_llm is not None
        llm = self.extract_llm
        buffer: list[tuple[Context, list[Fact]]] = []
        unavailable: list[tuple[Context, LLMUnavailableError]] = []
        waiting: list[Context] = []
        done = 0
        try:
            for context, result in in_order(lambda c: extract_with_llm(llm, c), todo, self.concurrency):
                done += 1
                if isinstance(result, BatchPendingError):
                    report.llm_deferred += 1
                    waiting.append(context)
                    continue
                report.llm_calls += 1
                if isinstance(result, LLMUnavailableError):
                    unavailable.append((context, result))
                    continue
                if isinstance(result, LLMError):
                    report.extractions_failed += 1
                    self.store.mark_failed(scope, context.id, f"{type(result).__name__}: {result}")
                else:
                    kept, bad = ground(result, context.text, self.ungrounded)
                    report.facts_ungrounded += bad
                    self._ungrounded[context.id] = bad
                    buffer.append((context, make_facts(context, kept, "llm")))
                if len(buffer) >= SAVE_EVERY:
                    report.facts_added += self._save_extracted(scope, buffer)
                    buffer = []
                self.progress("facts", done, len(todo))
        except LLMUnavailableError as exc:
            if buffer:
                report.facts_added += self._save_extracted(scope, buffer)
            left = len(todo) - done + len(unavailable)
            raise LLMUnavailableError(
                f"{exc} — everything done so far is stored ({report.contexts_added} new contexts, "
                f"{report.facts_added} facts); {left} contexts still need facts: run the same add again "
                f"to resume"
            ) from exc
        if buffer:
            report.facts_added += self._save_extracted(scope, buffer)
        for context, error in unavailable:  # isolated faults: recorded, retried by the next run
            report.extractions_failed += 1
            self.store.mark_failed(scope, context.id, f"{type(error).__name__}: {error}")
        return waiting

    def _link(self, scope: Scope, pre: Precomputed | None, report: IngestReport) -> None:
        seeds = self.store.unlinked_facts(scope)
        if not seeds and not (pre is not None and pre.events is not None):
            return
        if self.integrate_llm is not None and self.store.extraction_states(scope, status=("batch",)):
            report.notes.append("events wait until every context's facts have their batch answer")
            return
        facts, vectors, rows, near = self._facts(scope)
        if pre is not None and pre.events is not None:
            events, skipped = attach_events(pre.events, facts)
            existing = self._stored_events(scope, [e.id for e in events])
            new = [e for e in events if e.id not in existing]
            if skipped:
                report.notes.append(f"{skipped} precomputed events matched no fact of this memory")
            self._save_events(scope, new, self._embed([e.text for e in new]), report)
            self.store.set_linked(scope, seeds)
            return
        linked = build_clusters(
            facts,
            vectors,
            seed_ids=seeds,
            tau=self.graph.tau,
            n_neighbors=self.graph.n_neighbors,
            rows=rows,
            near=near,
        )
        report.clusters_kept += len(linked.kept)
        report.clusters_discarded += linked.discarded
        probes: list[Cluster] = []
        if self.integrate_llm is not None and self.graph.change_tau is not None:
            asked = {frozenset(pair) for c in linked.kept for pair in combinations(c.fact_ids, 2)}
            low, high = self.graph.change_tau, self.graph.tau
            probes = change_probes(facts, vectors, seeds, low, high, asked, rows=rows, near=near)
        existing = self._stored_events(scope, [c.event_id for c in (*linked.kept, *probes)])
        clusters = [c for c in (*linked.kept, *probes) if c.event_id not in existing]
        by_id = {fid: facts[rows[fid]] for c in clusters for fid in c.fact_ids}  # the clusters' facts only
        failed: set[str] = set()
        if clusters and self.integrate_llm is None:
            named = sorted({by_id[f].context_id for c in clusters for f in c.fact_ids})
            contexts = {c.id: c for c in self.store.contexts(scope, named)}
            apart = [c for c in clusters if joins_apart(c, by_id, contexts)]
            report.clusters_discarded += len(clusters) - len(apart)
            report.clusters_kept -= len(clusters) - len(apart)
            clusters = apart
            events = [extractive_event(c, by_id) for c in clusters]
            vecs = mean_vectors([[rows[f] for f in c.fact_ids] for c in clusters], vectors)
            self._save_events(scope, events, vecs, report)
        elif clusters:
            failed = self._integrate_llm(scope, clusters, by_id, report, {p.event_id for p in probes})
        self.store.set_linked(scope, [f for f in seeds if f not in failed])

    def _facts(self, scope: Scope) -> LinkFacts:
        if self.fact_source is not None:
            return self.fact_source(scope)
        facts, vectors = self.store.fact_matrix(scope)
        return LinkFacts(facts, vectors, {f.id: i for i, f in enumerate(facts)})

    def _stored_events(self, scope: Scope, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that name stored events."""
        return {e.id for e in self.store.events(scope, ids)} if ids else set()

    def _integrate_llm(
        self,
        scope: Scope,
        clusters: Sequence[Cluster],
        facts: dict[str, Fact],
        report: IngestReport,
        probes: Collection[str] = (),
    ) -> set[str]:
        """Write the clusters' events (of ``probes``, event ids of change probes, only those that say a change);
        returns the seed fact ids of clusters whose integration failed."""
        assert self.integrate_llm is not None
        llm = self.integrate_llm
        named = sorted({cid for cluster in clusters for cid, _ in cluster.pairs})
        contexts = {c.id: c for c in self.store.contexts(scope, named)}
        buffer: list[Event] = []
        failed: set[str] = set()
        done = 0
        try:
            for cluster, result in in_order(
                lambda cl: integrate_with_llm(llm, cl, contexts, facts), clusters, self.concurrency
            ):
                done += 1
                if isinstance(result, BatchPendingError):  # its seed stays unlinked: asked again next run
                    report.llm_deferred += 1
                    failed.add(cluster.seed_id)
                    continue
                report.llm_calls += 1
                if isinstance(result, LLMError):
                    report.integrations_failed += 1
                    failed.add(cluster.seed_id)
                elif result.supersedes or result.id not in probes:
                    buffer.append(result)
                if len(buffer) >= SAVE_EVERY:
                    self._save_events(scope, buffer, self._embed([e.text for e in buffer]), report)
                    buffer = []
                self.progress("events", done, len(clusters))
        except LLMUnavailableError as exc:
            if buffer:
                self._save_events(scope, buffer, self._embed([e.text for e in buffer]), report)
            raise LLMUnavailableError(
                f"{exc} — all facts and {report.events_added} events are stored; "
                f"{len(clusters) - done + 1} events still to write: run the same add again to resume"
            ) from exc
        if buffer:
            self._save_events(scope, buffer, self._embed([e.text for e in buffer]), report)
        return failed

    def _save_events(self, scope: Scope, events: Sequence[Event], vectors: np.ndarray, report: IngestReport) -> None:
        if events:
            report.events_added += self.store.add_events(scope, events, vectors)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        parts = [self.embedder.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        return np.concatenate(parts).astype(np.float32, copy=False)
