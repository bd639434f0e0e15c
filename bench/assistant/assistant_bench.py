"""Ranking on user/assistant chats, measured the way an agent builder meets it (offline path, no LLM).

    PYTHONPATH=src python bench/assistant/assistant_bench.py bench/data/assistant/life_nadia.json ... \
        [--speakers roles|named] [--variant anchormem] [--json out.json] [--verbose]
        [--memory-batch MODEL --memory-dir DIR [--memory-results FILE ...]]

With ``--memory-batch`` the memories are on the LLM path: facts and events MODEL wrote, its requests answered
through batch files kept in DIR (docs/batch.md); while requests wait, the run writes them to
DIR/assistant-round-N.jsonl and stops (round 1 the facts, round 2 the events).

Each chat (LoCoMo layout, ``bench/data/assistant/README.md``) is sent through the public API the way
agent builders send it: ``role``/``content`` messages with ``created_at`` and ``session`` (``--speakers
named``: ``speaker``/``text`` with the user's first name and "Assistant", and the questions'
``question_named``). Every message keeps its ``dia_id`` as its id, so evidence ids name messages.

Per question kind (stable, current, earlier, date, multi) it prints, for the searched recipe and for BM25
side by side:

- ``rank1``: the first context holds an evidence message (the answer's context is first);
- ``top3``: an evidence message is inside the first three contexts (the answer's context is in the first 3);
- ``all3``: every evidence message is inside the first three contexts;
- ``latest``: (current-state questions) a context among the first three holds the newest statement and is
  marked ``latest=True``;
- ``misleading``: an evidence-holding context among the first three is marked ``latest=False`` although it
  holds the current answer (stable and current questions);
- ``prompt4k``: every evidence message is inside ``as_prompt(max_chars=4000)`` (the turns it shows);
- ``recall@10k`` / ``recall@5k``: evidence recall of the best-first contexts that fit 10,000 / 5,000
  characters of context text, beside a message-level baseline (each message its own document, dense MiniLM
  and BM25 fused by reciprocal rank, as many messages as fit the same characters: the shape of Mem0's
  ``infer=False`` search).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory, Settings
from anchormem.eval.answers.memory_batch import MemoryBatch
from anchormem.model import SearchResult
from anchormem.search.fuse import order_by_score, rrf
from anchormem.text.lexical import BM25Index

KINDS = ("stable", "current", "earlier", "date", "multi")
ALIASES = {"update": "current", "past": "earlier", "static": "stable"}  # the change-over-time chats' kinds
BUDGETS = (10_000, 5_000)
_DATE = re.compile(r"(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})", re.IGNORECASE)


def iso(date_time: str) -> str:
    found = _DATE.search(date_time)
    if not found:
        return date_time
    hour, minute, half, day, month, year = found.groups()
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    when = datetime.strptime(f"{day} {month} {year}", "%d %B %Y").replace(hour=h, minute=int(minute))
    return when.isoformat()


def messages(sample: dict[str, Any], speakers: str) -> list[dict[str, Any]]:
    conv = sample["conversation"]
    user_name = sample.get("user_name") or "User"
    out: list[dict[str, Any]] = []
    n = 1
    while f"session_{n}" in conv:
        when = iso(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            role = "user" if turn["speaker"] == conv["speaker_a"] else "assistant"
            if speakers == "roles":
                out.append({"role": role, "content": turn["text"], "created_at": when, "session": str(n)})
            else:
                name = user_name if role == "user" else "Assistant"
                out.append({"speaker": name, "text": turn["text"], "created_at": when, "session": str(n)})
            out[-1]["id"] = turn["dia_id"]
        n += 1
    return out


def kind_of(qa: dict[str, Any]) -> str:
    kind = str(qa.get("kind", "stable"))
    return ALIASES.get(kind, kind)


def budget_prefix(result: SearchResult, budget: int) -> set[str]:
    """Evidence ids inside the best-first contexts that fit ``budget`` characters of context text."""
    ids: set[str] = set()
    used = 0
    for hit in result.contexts:
        size = len(hit.context.text)
        if used + size > budget:
            break
        used += size
        ids |= set(hit.context.turn_ids)
    return ids


def prompt_turns(result: SearchResult, max_chars: int) -> set[str]:
    prompt = getattr(result, "prompt", None)
    if callable(prompt):  # the prompt block says which turns it shows
        return set(prompt(max_chars=max_chars).turn_ids)
    text = result.as_prompt(max_chars=max_chars)
    return set(re.findall(r"^\[([^\]]+)\] ", text, re.MULTILINE))


class MessageBaseline:
    """Each message its own document; dense (MiniLM) and BM25 rankings fused by RRF."""

    def __init__(self, memory: Memory, msgs: Sequence[dict[str, Any]]) -> None:
        self.ids = [m["id"] for m in msgs]
        self.texts = [m.get("content") or m.get("text") or "" for m in msgs]
        self.sizes = [len(t) + 20 for t in self.texts]  # "speaker said, ..." around the text
        self.memory = memory
        self.vectors = memory.embedder.embed(self.texts)
        self.bm25 = BM25Index(self.texts)

    def rankings(self, question: str) -> tuple[list[int], list[int], list[int]]:
        """Message rows best first: by MiniLM, by BM25, and the two fused by reciprocal rank."""
        q = self.memory.embedder.embed([question])[0]
        dense = [int(i) for i in np.argsort(-(self.vectors @ q), kind="stable")]
        lexical = [row for row, _ in self.bm25.top(question, len(self.ids))]
        return dense, lexical, order_by_score(rrf([(dense, 1.0), (lexical, 1.0)]))

    def retrieve(self, question: str, budget: int) -> set[str]:
        ids: set[str] = set()
        used = 0
        for row in self.rankings(question)[2]:
            if used + self.sizes[row] > budget:
                continue  # a smaller message may still fit
            used += self.sizes[row]
            ids.add(self.ids[row])
        return ids


def recall(gold: set[str], found: set[str]) -> float:
    return len(gold & found) / len(gold) if gold else 0.0


def evaluate(
    paths: Sequence[str],
    speakers: str,
    variants: Sequence[str],
    verbose: bool,
    batch: MemoryBatch | None = None,
    base: Settings | None = None,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    rows: list[dict[str, Any]] = []
    sizes: dict[str, list[float]] = defaultdict(list)
    for memory, user, sample, baseline in loaded(paths, speakers, batch, base):
        for qa in sample["qa"]:
            question = qa.get("question_named", qa["question"]) if speakers == "named" else qa["question"]
            gold = set(qa["evidence"])
            kind = kind_of(qa)
            row: dict[str, Any] = {"sample": user, "kind": kind, "question": question}
            for budget in BUDGETS:
                row[f"message@{budget}"] = recall(gold, baseline.retrieve(question, budget))
            for variant in variants:
                wide = memory.search(question, user_id=user, max_contexts=40, variant=variant)
                for budget in BUDGETS:
                    row[f"{variant}@{budget}"] = recall(gold, budget_prefix(wide, budget))
                result = memory.search(question, user_id=user, variant=variant)
                sizes[variant].append(sum(len(h.context.text) for h in result.contexts))
                hits = list(result.contexts)
                first3 = hits[:3]
                holders = [h for h in first3 if gold & set(h.context.turn_ids)]
                row[f"{variant}:rank1"] = bool(hits) and bool(gold & set(hits[0].context.turn_ids))
                row[f"{variant}:top3"] = bool(holders)
                row[f"{variant}:all3"] = gold <= {t for h in first3 for t in h.context.turn_ids}
                row[f"{variant}:latest"] = any(h.latest is True for h in holders)
                row[f"{variant}:misleading"] = kind in ("stable", "current") and any(h.latest is False for h in holders)
                row[f"{variant}:prompt4k"] = gold <= prompt_turns(result, 4000)
                if verbose and variant == variants[0] and not row[f"{variant}:all3"]:
                    print(f"  miss [{kind}] {user}: {question} gold={sorted(gold)}")
                    for h in first3:
                        print(f"     {h.rank} {h.score:.3f} {h.latest} {h.context.turn_ids}")
            rows.append(row)
    return rows, {v: float(np.mean(s)) if s else 0.0 for v, s in sizes.items()}


def loaded(
    paths: Sequence[str], speakers: str, batch: MemoryBatch | None = None, base: Settings | None = None
) -> Iterator[tuple[Memory, str, dict[str, Any], MessageBaseline]]:
    """Each chat added to one fresh memory (its ``sample_id`` as the user), with its message-level baseline;
    with ``batch``, on the LLM path: facts and events the model wrote, answered through batch files."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = replace(base or Settings(), store=str(Path(tmp) / "m.db"))
        memory = Memory(batch.settings(settings) if batch is not None else settings)
        try:
            for path in paths:
                for sample in json.loads(Path(path).read_text(encoding="utf-8")):
                    user = sample["sample_id"]
                    msgs = messages(sample, speakers)
                    memory.add(msgs, user_id=user, batch=batch is not None)
                    yield memory, user, sample, MessageBaseline(memory, msgs)
        finally:
            memory.close()


def waiting(paths: Sequence[str], speakers: str, batch: MemoryBatch, base: Settings) -> str | None:
    """Import the results files, build every chat's memory: None when every request has its answer, else what
    to do (the waiting requests written to ``batch.dir``/assistant-round-N.jsonl)."""
    batch.dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, Memory(batch.settings(replace(base, store=f"{tmp}/m.db"))) as mem:
        for results in batch.results:
            print(mem.batch_import(results).results.describe())
        for path in paths:
            for sample in json.loads(Path(path).read_text(encoding="utf-8")):
                mem.add(messages(sample, speakers), user_id=sample["sample_id"], batch=True)
        n = 1 + sum(1 for _ in batch.dir.glob("assistant-round-*.jsonl"))
        written = mem.batch_export(batch.dir / f"assistant-round-{n}.jsonl")
    if not written:
        return None
    return (
        f"memory requests to {batch.model} wait for their answers: {', '.join(map(str, written))}; answer them "
        "(OpenAI Batch API results format) and run again with --memory-results FILE for each results file"
    )


def report(rows: list[dict[str, Any]], variants: Sequence[str], chars: dict[str, float]) -> str:
    lines = []
    head = ["kind", "n"]
    for v in variants:
        head += [f"{v}:{m}" for m in ("rank1", "top3", "all3", "latest", "mislead", "prompt4k")]
    lines.append(" | ".join(head))
    for kind in (*KINDS, "all"):
        part = [r for r in rows if kind == "all" or r["kind"] == kind]
        if not part:
            continue
        cells = [kind, str(len(part))]
        for v in variants:
            for m in ("rank1", "top3", "all3", "latest", "misleading", "prompt4k"):
                if m == "latest" and kind not in ("current", "all"):
                    cells.append("-")
                    continue
                pool = [r for r in part if m != "latest" or r["kind"] == "current"]
                cells.append(f"{sum(bool(r[f'{v}:{m}']) for r in pool)}/{len(pool)}")
        lines.append(" | ".join(cells))
    lines.append("")
    lines.append("evidence recall at equal characters per question (best-first contexts that fit):")
    for budget in BUDGETS:
        cells = [f"  {budget:>6} chars:"]
        for name in ("message", *variants):
            cells.append(f"{name} {np.mean([r[f'{name}@{budget}'] for r in rows]):.3f}")
        lines.append("  ".join(cells))
    lines.append("mean context characters of a default search: " + ", ".join(f"{v} {c:,.0f}" for v, c in chars.items()))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--speakers", choices=("roles", "named"), default="roles")
    parser.add_argument("--variant", action="append", help="recipes to measure (default: anchormem and bm25)")
    parser.add_argument("--json", help="write the per-question rows here")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--memory-batch", metavar="MODEL", help="the LLM path: facts and events MODEL wrote")
    parser.add_argument("--memory-dir", help="with --memory-batch: where its requests and answers are kept")
    parser.add_argument("--memory-results", action="append", default=[], metavar="FILE", help="batch output file")
    parser.add_argument("--change-tau", type=float, help="graph.change_tau: ask the model about changes below tau")
    args = parser.parse_args()
    base = Settings()
    if args.change_tau is not None:
        base = replace(base, graph=replace(base.graph, change_tau=args.change_tau))
    variants = args.variant or ["anchormem", "bm25"]
    batch = None
    if args.memory_batch:
        if not args.memory_dir:
            parser.error("--memory-batch needs --memory-dir")
        results = tuple(Path(p) for p in args.memory_results)
        batch = MemoryBatch(model=args.memory_batch, dir=Path(args.memory_dir), results=results)
        todo = waiting(args.data, args.speakers, batch, base)
        if todo is not None:
            print(todo)
            return
        print(f"path: LLM, facts and events by {args.memory_batch} (batch files in {args.memory_dir})")
    rows, chars = evaluate(args.data, args.speakers, variants, args.verbose, batch, base)
    print(report(rows, variants, chars))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
