"""The ingest pipeline: turns → contexts → facts → vectors → store → clusters → events.

Each step commits before the next begins, so an interruption (a dead LLM, a crash)
loses nothing already done: turns and contexts are stored first; a context is
marked done in the same transaction that stores its facts; a re-run continues with
the contexts still pending or failed and with the events not yet written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from anchormem.config import GraphSettings
from anchormem.embed.protocol import Embedder
from anchormem.errors import LLMError, LLMUnavailableError
from anchormem.ingest.chunk import chunk_session
from anchormem.ingest.extract import extract_offline, extract_with_llm, make_facts
from anchormem.ingest.integrate import attach_events, extractive_event, integrate_with_llm, mean_vectors
from anchormem.ingest.link import Cluster, build_clusters
from anchormem.ingest.parallel import run_bounded
from anchormem.ingest.precomputed import Precomputed
from anchormem.llm.protocol import LLM
from anchormem.model import Context, Event, Fact, FactSource, IngestReport, Scope, Turn
from anchormem.store.protocol import Extraction, Store

Progress = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)``."""

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

    def run(self, scope: Scope, turns: Sequence[Turn], pre: Precomputed | None = None) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        try:
            self._store_contexts(scope, turns, report)
            self._extract(scope, pre, report)
            self._link(scope, pre, report)
        finally:
            report.seconds = time.perf_counter() - started
        return report

    # -- steps -------------------------------------------------------------------------------------------

    def _store_contexts(self, scope: Scope, turns: Sequence[Turn], report: IngestReport) -> None:
        report.turns_added = len(self.store.add_turns(scope, turns))
        contexts: list[Context] = []
        for session in dict.fromkeys(t.session for t in turns):
            contexts.extend(chunk_session(scope, self.store.turns(scope, session)))
        report.contexts_added = len(self.store.add_contexts(scope, contexts))

    def _extract(self, scope: Scope, pre: Precomputed | None, report: IngestReport) -> None:
        pending = {s.context_id for s in self.store.extraction_states(scope) if s.status != "done"}
        if not pending:
            return
        todo = [c for c in self.store.contexts(scope) if c.id in pending]
        given = pre.facts if pre else {}
        packed = [c for c in todo if c.turn_ids in given]
        rest = [c for c in todo if c.turn_ids not in given]
        if packed:
            self._save_direct(scope, [(c, given[c.turn_ids]) for c in packed], "pack", report)
        if rest and self.extract_llm is None:
            turns = {t.id: t for t in self.store.turns(scope)}
            self._save_direct(scope, [(c, extract_offline(c, turns)) for c in rest], "offline", report)
        elif rest:
            self._extract_llm(scope, rest, report)

    def _save_direct(self, scope: Scope, items: Sequence[tuple[Context, Sequence[str]]], source: FactSource,
                     report: IngestReport) -> None:
        done = 0
        for start in range(0, len(items), EMBED_BATCH // 4):
            batch = [(c, make_facts(c, texts, source)) for c, texts in items[start:start + EMBED_BATCH // 4]]
            report.facts_added += self._save(scope, batch)
            done += len(batch)
            self.progress("facts", done, len(items))

    def _save(self, scope: Scope, batch: Sequence[tuple[Context, list[Fact]]]) -> int:
        texts = [f.text for _, facts in batch for f in facts]
        vectors = self._embed(texts)
        out: list[Extraction] = []
        row = 0
        for context, facts in batch:
            out.append(Extraction(context.id, facts, vectors[row:row + len(facts)]))
            row += len(facts)
        return self.store.save_extractions(scope, out)

    def _extract_llm(self, scope: Scope, todo: Sequence[Context], report: IngestReport) -> None:
        assert self.extract_llm is not None
        llm = self.extract_llm
        buffer: list[tuple[Context, list[Fact]]] = []
        done = 0
        try:
            for context, result in run_bounded(lambda c: extract_with_llm(llm, c), todo, self.concurrency):
                done += 1
                report.llm_calls += 1
                if isinstance(result, LLMUnavailableError):
                    continue  # not this context's fault: it stays pending; run_bounded raises next
                if isinstance(result, LLMError):
                    report.extractions_failed += 1
                    self.store.mark_failed(scope, context.id, f"{type(result).__name__}: {result}")
                else:
                    buffer.append((context, make_facts(context, result, "llm")))
                if len(buffer) >= SAVE_EVERY:
                    report.facts_added += self._save(scope, buffer)
                    buffer = []
                self.progress("facts", done, len(todo))
        except LLMUnavailableError as exc:
            if buffer:
                report.facts_added += self._save(scope, buffer)
            left = len(todo) - done + 1
            raise LLMUnavailableError(
                f"{exc} — everything done so far is stored ({report.contexts_added} new contexts, "
                f"{report.facts_added} facts); {left} contexts still need facts: run the same add again "
                f"to resume") from exc
        if buffer:
            report.facts_added += self._save(scope, buffer)

    def _link(self, scope: Scope, pre: Precomputed | None, report: IngestReport) -> None:
        facts, vectors = self.store.fact_matrix(scope)
        existing = {e.id for e in self.store.events(scope)}
        if pre is not None and pre.events is not None:
            events, skipped = attach_events(pre.events, facts)
            new = [e for e in events if e.id not in existing]
            if skipped:
                report.notes.append(f"{skipped} precomputed events matched no fact of this memory")
            self._save_events(scope, new, self._embed([e.text for e in new]), report)
            return
        linked = build_clusters(facts, vectors, tau=self.graph.tau, n_neighbors=self.graph.n_neighbors)
        report.clusters_kept = len(linked.kept)
        report.clusters_discarded = linked.discarded
        clusters = [c for c in linked.kept if c.event_id not in existing]
        if not clusters:
            return
        by_id = {f.id: f for f in facts}
        if self.integrate_llm is None:
            index = {f.id: i for i, f in enumerate(facts)}
            events = [extractive_event(c, by_id) for c in clusters]
            vecs = mean_vectors([[index[f] for f in c.fact_ids] for c in clusters], vectors)
            self._save_events(scope, events, vecs, report)
            return
        self._integrate_llm(scope, clusters, by_id, report)

    def _integrate_llm(self, scope: Scope, clusters: Sequence[Cluster], facts: dict[str, Fact],
                       report: IngestReport) -> None:
        assert self.integrate_llm is not None
        llm = self.integrate_llm
        contexts = {c.id: c for c in self.store.contexts(scope)}
        buffer: list[Event] = []
        done = 0
        try:
            for _, result in run_bounded(lambda cl: integrate_with_llm(llm, cl, contexts, facts), clusters,
                                         self.concurrency):
                done += 1
                report.llm_calls += 1
                if isinstance(result, LLMError):
                    report.integrations_failed += 1
                else:
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
                f"{len(clusters) - done + 1} events still to write: run the same add again to resume") from exc
        if buffer:
            self._save_events(scope, buffer, self._embed([e.text for e in buffer]), report)

    def _save_events(self, scope: Scope, events: Sequence[Event], vectors: np.ndarray,
                     report: IngestReport) -> None:
        if events:
            report.events_added += self.store.add_events(scope, events, vectors)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        parts = [self.embedder.embed(texts[i:i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        return np.concatenate(parts).astype(np.float32, copy=False)
