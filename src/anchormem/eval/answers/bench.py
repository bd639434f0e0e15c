"""The answers benchmark, one resumable run in a directory:

1. the first time, the reader tasks and their key (``tasks.jsonl``, ``key.json``) are built from
   the chats (every later call reuses them, so answers always match their blocks);
2. the reader answers every task: a live OpenAI-compatible endpoint (through the response cache,
   ``reader-cache.sqlite``), or batch files (``batches/reader.partNNN.jsonl``; their results are read
   back with ``reader_results`` on a later call, ``reader-batch.sqlite`` keeps every answer);
3. the judge grades every answer the same way (``batches/judge.partNNN.jsonl``);
4. when every task is graded: ``report.md`` and ``graded.jsonl``.

Each call goes as far as the answers it has allow and says what waits.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from anchormem.config import LLMSettings, Settings
from anchormem.errors import ConfigError
from anchormem.eval.answers.chats import SPELLINGS, SYSTEMS, Chat, load_chats
from anchormem.eval.answers.memory_batch import MemoryBatch
from anchormem.eval.answers.run import Round, judge_answers, read_tasks_with
from anchormem.eval.answers.score import format_by_kind, format_proxy, format_scores, proxy_table, score_table
from anchormem.eval.answers.tasks import KeyEntry, ReaderTask, iter_blocks, make_tasks, read_tasks, write_tasks
from anchormem.llm.batch import BatchLLM
from anchormem.llm.cache import CachedLLM
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.llm.protocol import LLM
from anchormem.prompts import answer as answer_prompt
from anchormem.prompts import judge as judge_prompt

__all__ = ["AnswersConfig", "Role", "prepare_tasks", "proxy_report", "run_answers"]


@dataclass(frozen=True)
class Role:
    """Who answers (or judges): a live endpoint, or batch files for ``batch_model``."""

    live: LLMSettings | None = None
    batch_model: str | None = None
    results: tuple[Path, ...] = ()

    @property
    def given(self) -> bool:
        return self.live is not None or self.batch_model is not None


@dataclass(frozen=True)
class AnswersConfig:
    out: Path
    data: tuple[Path, ...] = ()
    samples: tuple[str, ...] | None = None  # sample ids to keep (default all)
    budget: int = 4000
    systems: tuple[str, ...] = SYSTEMS
    spellings: tuple[str, ...] = tuple(SPELLINGS)
    whole_max: int = 60_000
    seed: int = 32
    reader: Role = field(default_factory=Role)
    judge: Role = field(default_factory=Role)
    part_size: int = 100
    workers: int = 4
    settings: Settings | None = None
    memory_batch: MemoryBatch | None = None  # memories on the LLM path, through batch files (memory_batch.py)
    keep_memory: Path | None = None  # a store file that keeps the chats' memories between runs (iter_blocks)

    def block_settings(self, chats: list[Chat]) -> tuple[Settings | None, str | None]:
        """The settings the blocks' memories are built with, or (None, what to do) while memory requests
        wait for their batch answers."""
        if self.memory_batch is None:
            return self.settings, None
        base = self.settings or Settings()
        waiting = self.memory_batch.prepare(chats, self.spellings, base)
        return self.memory_batch.settings(base), waiting


def _chats(paths: tuple[Path, ...], samples: tuple[str, ...] | None = None) -> list[Chat]:
    if not paths:
        raise ConfigError("no chats: give --data FILE (LoCoMo layout), once or more")
    chats = [chat for path in paths for chat in load_chats(path)]
    if samples is None:
        return chats
    unknown = set(samples) - {chat.sample_id for chat in chats}
    if unknown:
        raise ConfigError(f"no chat with sample_id {', '.join(sorted(unknown))} in {', '.join(map(str, paths))}")
    return [chat for chat in chats if chat.sample_id in samples]


def _make_tasks(config: AnswersConfig) -> tuple[list[ReaderTask], list[KeyEntry]] | str:
    """The tasks and key of ``config``'s chats, or what the blocks still wait for (a message)."""
    chats = _chats(config.data, config.samples)
    settings, waiting = config.block_settings(chats)
    if waiting is not None:
        return waiting
    items = iter_blocks(
        chats,
        config.systems,
        config.spellings,
        config.budget,
        whole_max=config.whole_max,
        settings=settings,
        keep=config.keep_memory,
    )
    return make_tasks(items, seed=config.seed)


def prepare_tasks(config: AnswersConfig) -> str:
    """Build the tasks and key in ``config.out`` unless they are there; returns what was done."""
    if (config.out / "tasks.jsonl").exists():
        return f"tasks: {config.out / 'tasks.jsonl'} (kept; delete it to build them again)"
    for system in config.systems:
        if system not in SYSTEMS:
            raise ConfigError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    made = _make_tasks(config)
    if isinstance(made, str):
        return made
    tasks, key = made
    write_tasks(config.out, tasks, key)
    return f"tasks: {len(tasks)} written to {config.out / 'tasks.jsonl'}, key in {config.out / 'key.json'}"


def proxy_report(config: AnswersConfig, *, from_run: bool = False) -> str:
    """The cheap proxy on the chats of ``config.data`` (no reader, no files written), or with
    ``from_run`` on the key of the answers run in ``config.out``."""
    if from_run:
        _, by_id = read_tasks(config.out)
        key = list(by_id.values())
    else:
        made = _make_tasks(config)
        if isinstance(made, str):
            return made
        _, key = made
    with_terms = sum(entry.terms_shown is not None for entry in key)
    systems = [s for s in config.systems if any(k.system == s for k in key)]
    return format_proxy(proxy_table({k.task_id: k for k in key}), systems, with_terms=with_terms)


def _open(role: Role, out: Path, name: str) -> tuple[CachedLLM | BatchLLM, BatchLLM | None, list[str]]:
    notes: list[str] = []
    if role.batch_model is not None:
        batch = BatchLLM(role.batch_model, out / f"{name}-batch.sqlite")
        for path in role.results:
            notes.append(batch.import_results(path).describe())
        return batch, batch, notes
    assert role.live is not None
    return CachedLLM(OpenAICompatLLM(role.live), out / f"{name}-cache.sqlite"), None, notes


def _step(
    role: Role, out: Path, name: str, work: Callable[[LLM], Round], config: AnswersConfig
) -> tuple[Round, list[str]]:
    llm, batch, notes = _open(role, out, name)
    with llm:
        done = work(llm)
        if batch is not None:  # the run's batch files always hold just what still waits
            for stale in (out / "batches").glob(f"{name}.part*.jsonl"):
                stale.unlink()
        if done.pending and batch is not None:
            files = batch.export(out / "batches" / f"{name}.jsonl", part_size=config.part_size)
            notes.append(
                f"{name}: {len(done.pending)} tasks wait for answers; batch input written: "
                + ", ".join(str(f) for f in files)
                + f"\n  answer them, then run again with --{name}-results FILE (one per results file)"
            )
    if done.unreadable:
        notes.append(f"{name}: {len(done.unreadable)} replies stayed unreadable (graded WRONG)")
    return done, notes


def _prompt_versions(out: Path) -> list[str]:
    """Record the answer and judge prompts' versions on a run's first call; later, say when they changed:
    the requests are built from the prompts, so answers to the old ones no longer match."""
    now = {"answer_prompt": answer_prompt.VERSION, "judge_prompt": judge_prompt.VERSION}
    path = out / "prompts.json"
    if not path.exists():
        path.write_text(json.dumps(now) + "\n", encoding="utf-8")
        return []
    try:
        then = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return [f"warning: {path} is unreadable; cannot tell whether the prompts changed"]
    changed = [f"{name} {then.get(name)} -> {version}" for name, version in now.items() if then.get(name) != version]
    if not changed:
        return []
    return [
        f"warning: the prompts changed since this run began ({', '.join(changed)}): answers to requests written "
        "before no longer match, and the requests are written again; answer those"
    ]


def run_answers(config: AnswersConfig) -> str:
    """One call of the run (see the module's docstring); returns its account, the report when complete."""
    lines = [prepare_tasks(config)]
    if not (config.out / "tasks.jsonl").exists():  # the memories' batch requests wait for their answers
        return "\n".join(lines)
    tasks, key = read_tasks(config.out)
    lines += _prompt_versions(config.out)
    if not config.reader.given:
        lines.append("reader: none given (--reader-batch MODEL for batch files, or --reader-url/--reader-model)")
        return "\n".join(lines)
    read, notes = _step(
        config.reader, config.out, "reader", lambda llm: read_tasks_with(llm, tasks, workers=config.workers), config
    )
    lines += notes
    lines.append(f"reader: {len(read.values)} of {len(tasks)} tasks answered")
    if not read.done:
        return "\n".join(lines)
    judge_role = config.judge if config.judge.given else replace(config.reader, results=config.judge.results)
    judged, notes = _step(
        judge_role,
        config.out,
        "judge",
        lambda llm: judge_answers(llm, key, read.values, workers=config.workers),
        config,
    )
    lines += notes
    lines.append(f"judge: {len(judged.values)} of {len(read.values)} answers graded")
    if not judged.done:
        return "\n".join(lines)
    cells = score_table(key, read.values, judged.values)
    report = format_scores(cells, config.systems) + "\n\nBy kind:\n\n" + format_by_kind(cells, config.systems)
    (config.out / "report.md").write_text(report + "\n", encoding="utf-8")
    graded = [
        {**json.loads(json.dumps(key[t].__dict__)), "reader_answer": read.values[t], "correct": judged.values[t]}
        for t in sorted(judged.values)
    ]
    (config.out / "graded.jsonl").write_text(
        "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in graded), encoding="utf-8"
    )
    lines.append(f"report: {config.out / 'report.md'}, per task: {config.out / 'graded.jsonl'}")
    return "\n".join([*lines, "", report])
