"""``anchormem eval locomo``: one memory per LoCoMo conversation, every question asked, a report.

The run lives in one directory: ``memory.db`` (the store, one user per sample id),
``llm-cache.db``, ``run.json`` (the parameters; a resumed run must use the same ones),
``retrieval.jsonl`` (one line per question, appended and flushed as it is answered: a
restart skips the questions already there), ``usage.json`` (query-phase cost, summed over
restarts), ``report.md``/``report.json`` and the plots.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TypedDict, Unpack

from anchormem.answer.answer import read
from anchormem.answer.render import render_memories
from anchormem.config import GraphSettings, LLMSettings, Settings
from anchormem.errors import ConfigError, LLMError, LLMNotConfiguredError, LLMResponseError
from anchormem.eval.evidence import evidence_recall
from anchormem.eval.judge import JUDGING, Judge
from anchormem.eval.locomo import add_locomo
from anchormem.eval.plots import category_plots, optional_plots
from anchormem.eval.qa import Question, questions_from_samples, read_samples, select_samples
from anchormem.eval.report import (
    AEGStats,
    Report,
    ResultsFile,
    build_report,
    check_run_file,
    code_version,
    load_usage,
    provenance,
    save_usage,
)
from anchormem.eval.variants import EVAL_ONLY_VARIANTS, eval_variants
from anchormem.ingest.parallel import run_bounded
from anchormem.ingest.pipeline import Progress
from anchormem.llm.factory import open_llm
from anchormem.llm.protocol import LLM
from anchormem.memory import Memory
from anchormem.model import SearchResult, Usage
from anchormem.search.recipes import RECIPES

__all__ = [
    "EVAL_ONLY_VARIANTS",
    "EvalConfig",
    "EvalResult",
    "LocomoRun",
    "MemoryFactory",
    "RunOptions",
    "eval_variants",
    "render_facts",
    "run_locomo",
]

MemoryFactory = Callable[[Settings], Memory]


@dataclass(frozen=True)
class EvalConfig:
    data: Path
    out: Path
    samples: tuple[str, ...] | None = None  # None: every sample of the file
    facts: Path | None = None
    events: Path | None = None
    answer: bool = True  # False: retrieval only (evidence recall)
    k: int = 10
    max_contexts: int | None = None  # None: k
    tau: float = 0.85
    n_neighbors: int = 3
    variant: str = "anchormem"
    settings: Settings = field(default_factory=Settings)  # the extraction LLM and the embedder
    reader: LLMSettings | None = None  # None: the extraction LLM
    judge: LLMSettings | None = None  # None: the reader
    store: Path | None = None  # None: out/memory.db
    cache: Path | None = None  # None: out/llm-cache.db

    @property
    def store_path(self) -> Path:
        return self.store or self.out / "memory.db"

    @property
    def cache_path(self) -> Path:
        return self.cache or self.out / "llm-cache.db"

    @property
    def contexts(self) -> int:
        return self.max_contexts or self.k

    def retrieval_variant(self) -> str:
        recipe = EVAL_ONLY_VARIANTS.get(self.variant, self.variant)
        if recipe not in RECIPES:
            raise ConfigError(f"unknown variant {self.variant!r}; choose one of {', '.join(eval_variants())}")
        return recipe

    def memory_settings(self) -> Settings:
        if self.k < 1 or self.contexts < 1:
            raise ConfigError("--k and --max-contexts must be at least 1")
        if not 0.0 < self.tau < 1.0 or self.n_neighbors < 1:
            raise ConfigError(f"tau must lie in (0, 1) and N be at least 1 (got {self.tau}, {self.n_neighbors})")
        retrieval = replace(
            self.settings.retrieval,
            k_facts=self.k,
            k_events=self.k,
            max_contexts=self.contexts,
            variant=self.retrieval_variant(),
        )
        return replace(
            self.settings,
            store=str(self.store_path),
            cache=str(self.cache_path),
            retrieval=retrieval,
            graph=GraphSettings(tau=self.tau, n_neighbors=self.n_neighbors),
        )

    def ingest_params(self) -> dict[str, Any]:
        """What the store's memories depend on (a resumed run must match them)."""
        llm = self.settings.llm
        return {
            "facts": _abs(self.facts),
            "events": _abs(self.events),
            "tau": self.tau,
            "n_neighbors": self.n_neighbors,
            "embed_backend": self.settings.embed.backend,
            "chunking": asdict(self.settings.chunking),
            "llm_model": llm.model if llm is not None else None,
        }


@dataclass
class EvalResult:
    out: Path
    report: Report
    asked: int  # questions asked by this run
    skipped: int  # questions already in retrieval.jsonl


def _abs(path: Path | None) -> str | None:
    return None if path is None else str(Path(path).expanduser().resolve())


def render_facts(result: SearchResult) -> str:
    """The ``no-context`` memory block: each retrieved context's date and anchor facts, then the events."""
    blocks = []
    for hit in result.contexts:
        lines = [f"DATE: {hit.context.date}"] if hit.context.date else []
        blocks.append("\n".join(lines + [f"- {a.fact.text}" for a in hit.anchors]))
    events = render_memories(SearchResult(query=result.query, contexts=(), events=result.events))
    return "\n\n".join(blocks + ([events] if events else []))


class RunOptions(TypedDict, total=False):
    """What an evaluation run may be given besides its config: ``memory_factory`` builds the Memory
    from the run's settings (default :class:`Memory`); ``reader`` and ``judge`` override the LLMs
    the config names (tests pass fakes); ``progress`` is told how far ingest and questions are."""

    memory_factory: MemoryFactory
    reader: LLM | None
    judge: LLM | None
    progress: Progress | None


class LocomoRun:
    """One evaluation run of ``config`` (see :class:`RunOptions` for the rest)."""

    def __init__(self, config: EvalConfig, **options: Unpack[RunOptions]) -> None:
        self.config = config
        self._factory = options.get("memory_factory", Memory)
        self._reader, self._judge_llm = options.get("reader"), options.get("judge")
        self._progress = options.get("progress") or (lambda *_: None)
        self._opened: list[LLM] = []  # LLMs this run opened (and closes)

    def run(self) -> EvalResult:
        cfg = self.config
        settings = cfg.memory_settings()
        raw = read_samples(cfg.data)
        samples = select_samples(raw, list(cfg.samples) if cfg.samples else None)
        questions = questions_from_samples(samples)
        cfg.out.mkdir(parents=True, exist_ok=True)
        memory = self._factory(settings)
        try:
            reader, judge = self._models(memory)
            info = self._run_info(reader, judge, [s["sample_id"] for s in samples])
            aeg = {s["sample_id"]: self._ingest(memory, s["sample_id"]) for s in samples}
            results = ResultsFile(cfg.out / "retrieval.jsonl")
            done = results.keys()
            todo = [q for q in questions if q.key not in done]
            self._ask_all(memory, reader, judge, todo, results)
            info["path"] = provenance(
                aeg, {"extraction": _model(memory.llm), "reader": _model(reader), "judge": _model(judge)}
            )
            cost = self._cost(memory, samples)
            all_keys = [q.key for q in questions_from_samples(raw)]
            report = build_report(questions, results.load(), all_keys, cost, aeg, info)
        finally:
            memory.close()
            for llm in self._opened:
                close = getattr(llm, "close", None)
                if close is not None:
                    close()
        report.write(cfg.out)
        optional_plots(lambda: category_plots(cfg.out, report))
        return EvalResult(out=cfg.out, report=report, asked=len(todo), skipped=len(questions) - len(todo))

    # -- setup ---------------------------------------------------------------------------------------------

    def _models(self, memory: Memory) -> tuple[LLM | None, Judge | None]:
        cfg = self.config
        if not cfg.answer:
            return None, None
        reader = self._reader
        if reader is None:
            reader = self._open(cfg.reader) if cfg.reader is not None else memory.llm
        if reader is None:
            raise LLMNotConfiguredError(
                "answering needs a reader LLM: pass --llm-url/--llm-model (or "
                "--reader-url/--reader-model), or --no-answer to score retrieval "
                "only"
            )
        judge_llm = self._judge_llm
        if judge_llm is None:
            judge_llm = self._open(cfg.judge) if cfg.judge is not None else reader
        return reader, Judge(judge_llm)

    def _open(self, settings: LLMSettings) -> LLM:
        llm = open_llm(settings, self.config.cache_path)
        self._opened.append(llm)
        return llm

    def _run_info(self, reader: LLM | None, judge: Judge | None, samples: list[str]) -> dict[str, Any]:
        cfg = self.config
        query = {
            "k": cfg.k,
            "max_contexts": cfg.contexts,
            "variant": cfg.variant,
            "answer": cfg.answer,
            "reader_model": _model(reader),
            "judge_model": _model(judge),
        }
        info = {
            "variant": cfg.variant,
            "data": _abs(cfg.data),
            "samples": samples,
            "ingest": cfg.ingest_params(),
            "query": query,
            "version": code_version(),
        }
        return check_run_file(cfg.out / "run.json", info, ("ingest", "query"))

    def _ingest(self, memory: Memory, sample_id: str) -> AEGStats:
        cfg = self.config
        report = add_locomo(
            memory,
            cfg.data,
            user_id=sample_id,
            sample=sample_id,
            facts=cfg.facts,
            events=cfg.events,
            progress=self._progress,
        )
        stats = memory.stats(user_id=sample_id)
        facts = Counter[str](f.source for f in memory.facts(user_id=sample_id))
        events = Counter[str](e.source for e in memory.events(user_id=sample_id))
        built = AEGStats(
            facts=stats.facts,
            events=stats.events,
            clusters_discarded=report.clusters_discarded,
            clusters_kept=report.clusters_kept,
            fact_sources=dict(facts),
            event_sources=dict(events),
            ingest_seconds=report.seconds,
        )
        return self._first_build(sample_id, built, fresh=report.contexts_added > 0 or report.facts_added > 0)

    def _first_build(self, sample_id: str, built: AEGStats, fresh: bool) -> AEGStats:
        """A resumed run (or a sweep's run that reuses a memory) adds nothing: report the build time and
        cluster counts of the run that built the memory, kept next to its store, not those of the no-op
        re-add."""
        store = self.config.store_path
        path = store.with_name(store.stem + ".ingest.json")
        known: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if not fresh and sample_id in known:
            first = known[sample_id]
            return replace(
                built,
                clusters_discarded=first["clusters_discarded"],
                clusters_kept=first["clusters_kept"],
                ingest_seconds=first["ingest_seconds"],
            )
        known[sample_id] = {
            "clusters_discarded": built.clusters_discarded,
            "clusters_kept": built.clusters_kept,
            "ingest_seconds": built.ingest_seconds,
        }
        path.write_text(json.dumps(known, indent=1), encoding="utf-8")
        return built

    # -- questions -----------------------------------------------------------------------------------------

    def _ask_all(
        self, memory: Memory, reader: LLM | None, judge: Judge | None, todo: list[Question], results: ResultsFile
    ) -> None:
        usage_path = self.config.out / "usage.json"
        before = load_usage(usage_path)
        concurrency = 1
        if reader is not None:
            llm = self.config.reader or self.config.settings.llm
            concurrency = llm.concurrency if llm is not None else 4
        done = 0

        def save() -> None:
            now = {p: memory.accounting.usage(p) for p in ("retrieval", "answering")}
            if judge is not None:
                now[JUDGING] = judge.accounting.usage(JUDGING)
            save_usage(usage_path, before, now)

        try:
            with results.appender() as append:
                ask = partial(self._ask, memory, reader, judge)
                for _, record in run_bounded(ask, todo, concurrency):
                    if isinstance(record, LLMError):
                        continue  # the endpoint died: run_bounded raises once the running calls are in
                    append(record)
                    done += 1
                    self._progress("questions", done, len(todo))
                    if done % 50 == 0:
                        save()
        finally:
            save()

    def _ask(self, memory: Memory, reader: LLM | None, judge: Judge | None, q: Question) -> dict[str, Any]:
        text, error = None, None
        result = memory.search(q.question, user_id=q.sample_id)
        no_context = self.config.variant == "no-context"
        rendered = render_facts(result) if no_context else render_memories(result)
        if reader is not None:
            try:
                # the reader sees the facts (no-context) or the contexts with their turn ids
                shown = rendered if no_context else None
                text = read(memory.accounting.wrap(reader, "answering"), q.question, result, shown).text
            except LLMResponseError as exc:
                text, error = "", str(exc)
        ids = result.turn_ids
        record: dict[str, Any] = {
            "sample_id": q.sample_id,
            "qa_index": q.qa_index,
            "question": q.question,
            "category": q.category,
            "retrieved_dia_ids": ids,
            "n_contexts": len(result.contexts),
            "context_chars": len(rendered),
            "evidence": list(q.evidence),
            "recall": evidence_recall(q.evidence, ids),
        }
        if text is not None:
            record.update(answer=text, gold=q.answer)
            if error:
                record["answer_error"] = error
        if judge is not None and text is not None:
            try:
                record["judge"] = judge.grade(q.question, q.answer, text)
            except LLMResponseError as exc:
                record["judge_error"] = str(exc)
        return record

    # -- report --------------------------------------------------------------------------------------------

    def _cost(self, memory: Memory, samples: list[dict[str, Any]]) -> dict[str, Usage]:
        cost: dict[str, Usage] = {}
        for sample in samples:
            for phase, usage in memory.stats(user_id=sample["sample_id"]).usage.items():
                cost.setdefault(phase, Usage()).add(usage)
        cost.update(load_usage(self.config.out / "usage.json"))
        return cost


def _model(llm: LLM | Judge | None) -> str | None:
    """The model's name (``is not None``: a cached LLM with an empty cache is falsy)."""
    return llm.model if llm is not None else None


def run_locomo(config: EvalConfig, **options: Unpack[RunOptions]) -> EvalResult:
    """Run the LoCoMo evaluation described by ``config`` (see :class:`LocomoRun`)."""
    return LocomoRun(config, **options).run()
