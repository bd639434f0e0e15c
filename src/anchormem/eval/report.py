"""What a LoCoMo run leaves behind: the per-question results file (``retrieval.jsonl``), the
query-phase usage summed over restarts (``usage.json``) and the report: answer scores (Table 1),
evidence recall, cost (Tables 2 and 4), AEG statistics (Table 5) and where the numbers came from."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from anchormem.errors import ConfigError, InputError
from anchormem.eval.evidence import RecallSummary, summarize_recall
from anchormem.eval.qa import Question
from anchormem.eval.score import TABLE_ORDER, AnswerRecord, ScoreReport, format_markdown, score_records
from anchormem.model import Usage

__all__ = [
    "PHASES",
    "AEGStats",
    "Report",
    "ResultsFile",
    "build_report",
    "check_run_file",
    "code_version",
    "load_usage",
    "provenance",
    "save_usage",
]

# (phase, component) rows of the cost table, as in the paper's Table 4.
PHASES: tuple[tuple[str, str, str], ...] = (
    ("Offline", "Fact extraction", "extraction"),
    ("Offline", "Event integration", "integration"),
    ("Online", "Retrieval", "retrieval"),
    ("Online", "Answer generation", "answering"),
    ("Online", "Judging", "judging"),
)
ONLINE = frozenset({"retrieval", "answering", "judging"})


@dataclass
class AEGStats:
    """What the associative event graph of one conversation holds (Table 5)."""

    facts: int = 0
    events: int = 0
    clusters_discarded: int = 0
    clusters_kept: int = 0
    fact_sources: dict[str, int] = field(default_factory=dict)
    event_sources: dict[str, int] = field(default_factory=dict)
    ingest_seconds: float = 0.0


@dataclass
class Report:
    score: ScoreReport | None  # None when no answer was generated
    recall: dict[str, RecallSummary]  # by table column name ("Single Hop", ..., "Average")
    contexts: dict[str, dict[str, float]]  # mean n_contexts and context_chars per column
    cost: dict[str, Usage]
    aeg: dict[str, AEGStats]
    info: dict[str, Any]
    not_asked: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "info": self.info,
            "answers": None
            if self.score is None
            else {k: v for k, v in self.score.to_dict().items() if k != "questions"},
            "recall": {name: asdict(r) for name, r in self.recall.items()},
            "contexts": self.contexts,
            "cost": {phase: asdict(u) for phase, u in self.cost.items()},
            "aeg": {sample: asdict(s) for sample, s in self.aeg.items()},
            "not_asked": self.not_asked,
        }

    def write(self, out: Path) -> None:
        """``out/report.json`` and ``out/report.md``."""
        try:
            (out / "report.json").write_text(json.dumps(self.to_dict(), indent=2), encoding="utf-8")
            (out / "report.md").write_text(self.to_markdown(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the report into {out}: {exc}") from exc

    def to_markdown(self) -> str:
        lines = [f"# LoCoMo evaluation: {self.info.get('variant', 'anchormem')}", ""]
        lines += _provenance(self.info)
        if self.score is not None:
            lines += [
                "",
                "## Answers (Table 1: F1, BLEU-1, LLM-judge accuracy, %)",
                "",
                format_markdown(self.score, label=str(self.info.get("variant", "anchormem"))).rstrip(),
            ]
        lines += ["", "## Evidence recall (%)", "", *self._recall_table()]
        lines += ["", "## Cost (Tables 2 and 4)", "", *self._cost_table()]
        lines += ["", "## Associative event graph (Table 5)", "", *self._aeg_table()]
        return "\n".join(lines) + "\n"

    def _recall_table(self) -> list[str]:
        names = list(self.recall)
        rows = [
            "| Metric | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
            "| Recall | " + " | ".join(_pct(self.recall[n].recall) for n in names) + " |",
            "| Questions scored | " + " | ".join(str(self.recall[n].scored) for n in names) + " |",
            "| Mean contexts | " + " | ".join(f"{self.contexts[n]['n_contexts']:.1f}" for n in names) + " |",
            "| Mean context chars | " + " | ".join(f"{self.contexts[n]['context_chars']:.0f}" for n in names) + " |",
        ]
        overall = self.recall["Average"]
        rows += ["", f"Questions without gold evidence (left out of recall): {overall.no_evidence}."]
        if self.not_asked:
            rows.append(f"Questions not asked yet (run again to resume): {self.not_asked}.")
        return rows

    def _cost_table(self) -> list[str]:
        rows = [
            "| Phase | Component | Prompt (k) | Completion (k) | Total (k) | Calls | Cached | Failed "
            "| Call time (s) | Avg time (s) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for phase, component, key in PHASES:
            u = self.cost.get(key, Usage())
            avg = f"{u.call_seconds / u.calls:.3f}" if key in ONLINE and u.calls else "-"
            tokens = (
                u.total_prompt_tokens / 1000,
                u.total_completion_tokens / 1000,
                (u.total_prompt_tokens + u.total_completion_tokens) / 1000,
            )
            rows.append(
                f"| {phase} | {component} | "
                + " | ".join(f"{t:,.2f}" for t in tokens)
                + f" | {u.calls:,} | {u.cached_calls:,} | {u.failed_calls:,} | {u.call_seconds:,.2f} "
                f"| {avg} |"
            )
        wall = sum(s.ingest_seconds for s in self.aeg.values())
        rows += [
            "",
            f"Ingest wall time of this run (embedding and store included): {wall:,.1f} s. Token "
            "counts are the method's cost: they include calls answered from the LLM cache (the 'Cached' "
            "column); the call time sums each call's wait for the model (concurrent calls each count).",
        ]
        return rows

    def _aeg_table(self) -> list[str]:
        n = max(1, len(self.aeg))
        totals = {
            "Facts": sum(s.facts for s in self.aeg.values()),
            "Events": sum(s.events for s in self.aeg.values()),
            "Clusters discarded": sum(s.clusters_discarded for s in self.aeg.values()),
            "Clusters kept": sum(s.clusters_kept for s in self.aeg.values()),
        }
        rows = ["| Statistic | Total | Average per conversation |", "|---|---|---|"]
        rows += [f"| {name} | {total:,} | {total / n:,.1f} |" for name, total in totals.items()]
        rows += [
            "",
            f"Conversations: {len(self.aeg)}. Cluster counts come from this run's graph linking; "
            "they are 0 when events come from a precomputed file.",
        ]
        return rows


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}"


def _sources(counts: Mapping[str, int], names: Mapping[str, str]) -> str:
    return ", ".join(f"{n:,} {names.get(src, src)}" for src, n in sorted(counts.items())) or "none"


def _provenance(info: Mapping[str, Any]) -> list[str]:
    path = info.get("path", {})
    models = path.get("models", {})
    llm = f"live LLM {models.get('extraction')}" if models.get("extraction") else "live LLM"
    facts = _sources(
        path.get("fact_sources", {}),
        {"pack": "from the precomputed pack", "offline": "from the offline extractor", "llm": f"from the {llm}"},
    )
    events = _sources(
        path.get("event_sources", {}),
        {"pack": "from the precomputed pack", "extractive": "extractive (no LLM)", "llm": f"from the {llm}"},
    )
    reader = models.get("reader") or "none (retrieval only)"
    judge = models.get("judge") or "none"
    version = info.get("version", {})
    params = ", ".join(f"{k}={v}" for k, v in {**info.get("ingest", {}), **info.get("query", {})}.items())
    return [
        f"- Path: facts {facts}; events {events}; reader {reader}; judge {judge}.",
        f"- Parameters: {params}.",
        f"- Data: {info.get('data')} (samples: {', '.join(info.get('samples', []))}).",
        f"- Code: anchormem {version.get('anchormem')}"
        + (f", git {version['git']}" if version.get("git") else "")
        + ".",
    ]


def provenance(aeg: Mapping[str, AEGStats], models: Mapping[str, str | None]) -> dict[str, Any]:
    """Where the facts and events came from (counts by source) and which models were used."""
    facts: Counter[str] = Counter()
    events: Counter[str] = Counter()
    for stats in aeg.values():
        facts.update(stats.fact_sources)
        events.update(stats.event_sources)
    return {"fact_sources": dict(facts), "event_sources": dict(events), "models": dict(models)}


def _column_questions(questions: Sequence[Question]) -> dict[str, list[Question]]:
    columns = {name: [q for q in questions if q.category == cat] for cat, name in TABLE_ORDER}
    columns["Average"] = list(questions)
    return columns


def build_report(
    questions: Sequence[Question],
    records: Iterable[Mapping[str, Any]],
    all_keys: Iterable[tuple[str, int]],
    cost: Mapping[str, Usage],
    aeg: Mapping[str, AEGStats],
    info: Mapping[str, Any],
) -> Report:
    """Score the run's ``records`` (lines of retrieval.jsonl) for ``questions``."""
    wanted = {q.key for q in questions}
    by_key = {(r["sample_id"], r["qa_index"]): r for r in records}
    by_key = {key: r for key, r in by_key.items() if key in wanted}
    answered = [
        AnswerRecord(sid, idx, str(r["answer"]), r.get("judge")) for (sid, idx), r in by_key.items() if "answer" in r
    ]
    score = score_records(questions, answered, all_keys) if answered else None
    recall: dict[str, RecallSummary] = {}
    contexts: dict[str, dict[str, float]] = {}
    for name, column in _column_questions(questions).items():
        seen = [(q, by_key[q.key]) for q in column if q.key in by_key]
        recall[name] = summarize_recall((q.evidence, r["retrieved_dia_ids"]) for q, r in seen)
        n = max(1, len(seen))
        contexts[name] = {
            "n_contexts": sum(r["n_contexts"] for _, r in seen) / n,
            "context_chars": sum(r["context_chars"] for _, r in seen) / n,
        }
    return Report(
        score=score,
        recall=recall,
        contexts=contexts,
        cost=dict(cost),
        aeg=dict(aeg),
        info=dict(info),
        not_asked=len(wanted - set(by_key)),
    )


def check_run_file(path: Path, info: dict[str, Any], parts: Sequence[str]) -> dict[str, Any]:
    """Write ``info`` to ``path`` (run.json); when the file exists, its ``parts`` must match ``info``'s,
    else :class:`ConfigError` names what differs."""
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}; remove it or use another --out") from exc
        for part in parts:
            before, now = old.get(part, {}), info[part]
            diff = [f"{k}: {before.get(k)!r} then, {now.get(k)!r} now" for k in now if before.get(k) != now[k]]
            if diff:
                raise ConfigError(
                    f"{path.parent} holds a run with other {part} parameters "
                    f"({'; '.join(diff)}); use the same options to resume, or another --out"
                )
    try:
        path.write_text(json.dumps(info, indent=2), encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc}") from exc
    return info


def code_version() -> dict[str, str | None]:
    """anchormem's version and, when git is at hand, the short commit of the source tree."""
    from anchormem import __version__

    git: str | None = None
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        if done.returncode == 0 and done.stdout.strip():
            git = done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        git = None
    return {"anchormem": __version__, "git": git}


class ResultsFile:
    """``retrieval.jsonl``: one JSON object per question, appended and flushed one at a time.

    A line cut short by an interruption (the last one, unreadable) is dropped when the file is read.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[dict[str, Any]]:
        """The records, first one per (sample_id, qa_index); repairs a torn last line."""
        try:
            data = self.path.read_bytes() if self.path.exists() else b""
        except OSError as exc:
            raise InputError(f"cannot read {self.path}: {exc}") from exc
        lines = data.split(b"\n")
        records: dict[tuple[str, int], dict[str, Any]] = {}
        good = 0  # bytes of well-formed lines
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                good += len(line) + 1
                continue
            try:
                record = json.loads(line)
                key = (record["sample_id"], record["qa_index"])
            except (ValueError, KeyError, TypeError) as exc:
                if number >= len(lines) - 1:  # the last line: an interrupted write
                    break
                raise InputError(f"{self.path}, line {number}: not a result record ({exc})") from exc
            records.setdefault(key, record)
            good += len(line) + 1
        if good < len(data):
            with self.path.open("r+b") as handle:
                handle.truncate(good)
        return list(records.values())

    def keys(self) -> set[tuple[str, int]]:
        return {(r["sample_id"], r["qa_index"]) for r in self.load()}

    @contextmanager
    def appender(self) -> Iterator[Callable[[Mapping[str, Any]], None]]:
        """A function appending one record as one line, flushed at once."""
        try:
            handle = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {self.path}: {exc}") from exc

        def append(record: Mapping[str, Any]) -> None:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()

        with handle:
            yield append


_USAGE_FIELDS = tuple(f.name for f in fields(Usage))
_RENAMED = {"seconds": "call_seconds"}  # usage files written before call and wall time were told apart


def load_usage(path: Path) -> dict[str, Usage]:
    """Usage per phase saved by :func:`save_usage` (empty when the file does not exist)."""
    if not path.exists():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {
            phase: Usage(**{_RENAMED.get(k, k): v for k, v in values.items() if _RENAMED.get(k, k) in _USAGE_FIELDS})
            for phase, values in raw.items()
        }
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise InputError(f"cannot read {path}: {exc}; delete it to reset the query cost") from exc


def save_usage(path: Path, before: Mapping[str, Usage], now: Mapping[str, Usage]) -> None:
    """Write ``before`` plus this run's ``now``, phase by phase."""
    total: dict[str, Usage] = {phase: Usage(**asdict(u)) for phase, u in before.items()}
    for phase, usage in now.items():
        total.setdefault(phase, Usage()).add(usage)
    path.write_text(json.dumps({p: asdict(u) for p, u in total.items()}, indent=2), encoding="utf-8")
