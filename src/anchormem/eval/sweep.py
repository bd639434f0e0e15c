"""``anchormem eval sweep``: the LoCoMo run over a grid of (tau, N, k), one table and plots.

Each (tau, N) needs its own memory (``DIR/tau0.85-n3/memory.db``); k only changes retrieval,
so the runs for every k of a cell (``DIR/tau0.85-n3/k10/``) share that memory. The LLM cache
(``DIR/llm-cache.db``) and the embedding model are shared by the whole grid. Each run is
resumable on its own, so an interrupted sweep picks up where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from anchormem.config import EmbedSettings, Settings
from anchormem.embed.factory import open_embedder
from anchormem.embed.protocol import Embedder
from anchormem.errors import ConfigError
from anchormem.eval.plots import line_chart, optional_plots
from anchormem.eval.report import Report
from anchormem.eval.runner import EvalConfig, MemoryFactory, run_locomo
from anchormem.ingest.pipeline import Progress
from anchormem.llm.protocol import LLM
from anchormem.memory import Memory

__all__ = ["SweepConfig", "cell_name", "run_sweep", "sharing_embedder"]


@dataclass(frozen=True)
class SweepConfig:
    base: EvalConfig  # base.out is the sweep directory
    taus: tuple[float, ...] = (0.85,)
    ns: tuple[int, ...] = (3,)
    ks: tuple[int, ...] = (10,)


def cell_name(tau: float, n: int) -> str:
    return f"tau{tau:.2f}-n{n}"


def sharing_embedder() -> MemoryFactory:
    """A Memory factory that loads each embedding model once for all the memories it builds."""
    embedders: dict[EmbedSettings, Embedder] = {}

    def make(settings: Settings) -> Memory:
        embedder = embedders.get(settings.embed)
        if embedder is None:
            embedder = embedders[settings.embed] = open_embedder(settings.embed)
        return Memory(settings, embedder=embedder)

    return make


def run_sweep(
    config: SweepConfig,
    *,
    memory_factory: MemoryFactory | None = None,
    reader: LLM | None = None,
    judge: LLM | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run every (tau, N, k) of the grid; write ``sweep.json``, ``sweep.md`` and the plots."""
    if not (config.taus and config.ns and config.ks):
        raise ConfigError("the sweep needs at least one tau, one N and one k")
    base, out = config.base, config.base.out
    factory = memory_factory or sharing_embedder()
    rows = []
    for tau in config.taus:
        for n in config.ns:
            cell = out / cell_name(tau, n)
            for k in config.ks:
                run = replace(
                    base,
                    out=cell / f"k{k}",
                    store=cell / "memory.db",
                    cache=base.cache or out / "llm-cache.db",
                    tau=tau,
                    n_neighbors=n,
                    k=k,
                )
                result = run_locomo(run, memory_factory=factory, reader=reader, judge=judge, progress=progress)
                rows.append(_row(tau, n, k, result.report))
    table = {"rows": rows, "events_from_file": base.events is not None, "answer": base.answer}
    (out / "sweep.json").write_text(json.dumps(table, indent=2), encoding="utf-8")
    (out / "sweep.md").write_text(format_sweep(table), encoding="utf-8")
    optional_plots(lambda: _plots(out, rows, base.answer))
    return table


def _row(tau: float, n: int, k: int, report: Report) -> dict[str, Any]:
    ingest = [report.cost[p] for p in ("extraction", "integration") if p in report.cost]
    row: dict[str, Any] = {
        "tau": tau,
        "n": n,
        "k": k,
        "recall": {name: r.recall for name, r in report.recall.items()},
        "facts": sum(s.facts for s in report.aeg.values()),
        "events": sum(s.events for s in report.aeg.values()),
        "clusters_discarded": sum(s.clusters_discarded for s in report.aeg.values()),
        "ingest_tokens": sum(u.prompt_tokens + u.completion_tokens for u in ingest),
        "ingest_calls": sum(u.calls for u in ingest),
    }
    if report.score is not None:
        row.update(
            f1=report.score.overall.f1,
            bleu1=report.score.overall.bleu1,
            judge_accuracy=report.score.overall.judge_accuracy,
        )
    return row


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def format_sweep(table: dict[str, Any]) -> str:
    rows: Sequence[dict[str, Any]] = table["rows"]
    names = list(rows[0]["recall"]) if rows else []
    answers = bool(table.get("answer")) and any("f1" in r for r in rows)
    header = ["tau", "N", "k", *(f"{name} recall" for name in names)]
    header += ["F1", "BLEU-1", "ACC"] if answers else []
    header += ["Facts", "Events", "Discarded", "Ingest tokens (k)", "Ingest calls"]
    lines = ["# LoCoMo sweep", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [f"{r['tau']:.2f}", str(r["n"]), str(r["k"]), *(_pct(r["recall"][n]) for n in names)]
        if answers:
            cells += [_pct(r.get("f1")), _pct(r.get("bleu1")), _pct(r.get("judge_accuracy"))]
        cells += [
            f"{r['facts']:,}",
            f"{r['events']:,}",
            f"{r['clusters_discarded']:,}",
            f"{r['ingest_tokens'] / 1000:,.1f}",
            f"{r['ingest_calls']:,}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if table.get("events_from_file"):
        lines += ["", "Events come from a precomputed file: tau and N do not change them."]
    return "\n".join(lines) + "\n"


def _plots(out: Path, rows: Sequence[dict[str, Any]], answer: bool) -> None:
    series: dict[str, list[tuple[float, float | None]]] = {}
    f1: dict[str, list[tuple[float, float | None]]] = {}
    for r in rows:
        name = f"tau={r['tau']:.2f}, N={r['n']}"
        series.setdefault(name, []).append((r["k"], r["recall"].get("Average")))
        f1.setdefault(name, []).append((r["k"], r.get("f1")))
    line_chart(out / "recall_vs_k.png", series, title="Evidence recall vs k", xlabel="k", ylabel="recall (%)")
    if answer:
        line_chart(out / "f1_vs_k.png", f1, title="Answer F1 vs k", xlabel="k", ylabel="F1 (%)")
