"""Ranking on user/assistant chats, measured the way an agent builder meets it (offline path, no LLM).

    PYTHONPATH=src python bench/assistant/assistant_bench.py bench/data/assistant/life_nadia.json ... \
        [--speakers roles|named] [--spelling third|user] [--variant anchormem] [--json out.json] [--verbose]
        [--memory-batch MODEL --memory-dir DIR [--memory-results FILE ...]]

With ``--memory-batch`` the memories are on the LLM path: facts and events MODEL wrote, its requests answered
through batch files kept in DIR (docs/batch.md); while requests wait, the run writes them to
DIR/assistant-round-N.jsonl and stops (round 1 the facts, round 2 the events).

Each chat (LoCoMo layout, ``bench/data/assistant/README.md``) is sent through the public API the way
agent builders send it: ``role``/``content`` messages with ``created_at`` and ``session`` (``--speakers
named``: ``speaker``/``text`` with the user's first name and "Assistant", and the questions'
``question_named``); ``--spelling user`` asks each question as the user types it: its ``question_user``, else the
third-person question put in the user's first person ("the user's" -> "my"). Every message keeps its ``dia_id`` as
its id, so evidence ids name messages.

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
- ``terms4k``: every answer term of the question (its ``answer_terms``, else the words of its answer of four
  letters or more found in an evidence message) is inside the text of ``prompt(max_chars=4000)``, beside the
  same for a block of the message-level search (best messages while 4,000 characters fit);
- ``msgs4k``: the distinct messages the 4,000-character block shows (mean), and ``ev4k`` the evidence messages;
- marks: each context marked ``latest``/``earlier`` that holds an evidence message or an outdated one
  (``previous``/``later``) is judged right or wrong (``latest`` on the subject's current statement, ``earlier``
  on an outdated one; for a stable question ``earlier`` on its evidence is wrong); precision = right / judged;
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
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory, Settings
from anchormem.eval.answers.chats import iso
from anchormem.eval.answers.memory_batch import MemoryBatch
from anchormem.model import SearchResult
from anchormem.search.fuse import order_by_score, rrf
from anchormem.text.lexical import BM25Index
from anchormem.text.voice import in_voice

KINDS = ("stable", "current", "earlier", "date", "multi")
ALIASES = {"update": "current", "past": "earlier", "static": "stable"}  # the change-over-time chats' kinds
BUDGETS = (10_000, 5_000)


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
        self.by_id = dict(zip(self.ids, self.texts, strict=True))

    def text_of(self, tid: str) -> str:
        return self.by_id.get(tid, "")

    def rankings(self, question: str) -> tuple[list[int], list[int], list[int]]:
        """Message rows best first: by MiniLM, by BM25, and the two fused by reciprocal rank."""
        q = self.memory.embedder.embed([question])[0]
        dense = [int(i) for i in np.argsort(-(self.vectors @ q), kind="stable")]
        lexical = [row for row, _ in self.bm25.top(question, len(self.ids))]
        return dense, lexical, order_by_score(rrf([(dense, 1.0), (lexical, 1.0)]))

    def block(self, question: str, budget: int) -> tuple[str, set[str]]:
        """A block of the best messages while ``budget`` characters fit, and the ids it holds."""
        lines: list[str] = []
        ids: set[str] = set()
        used = 120  # a heading
        for row in self.rankings(question)[2]:
            line = f"[{self.ids[row]}] {self.texts[row]}"
            if used + len(line) + 1 > budget:
                continue
            used += len(line) + 1
            lines.append(line)
            ids.add(self.ids[row])
        return "\n".join(lines), ids

    def retrieve(self, question: str, budget: int) -> set[str]:
        ids: set[str] = set()
        used = 0
        for row in self.rankings(question)[2]:
            if used + self.sizes[row] > budget:
                continue  # a smaller message may still fit
            used += self.sizes[row]
            ids.add(self.ids[row])
        return ids


_WORD = re.compile(r"\w+")
BLOCK = 4000


def answer_terms(qa: dict[str, Any], evidence_text: str) -> list[str]:
    """The question's ``answer_terms``, else the answer's words of 4+ letters that an evidence message holds."""
    if qa.get("answer_terms"):
        return [str(t).casefold() for t in qa["answer_terms"]]
    held = evidence_text.casefold()
    words = dict.fromkeys(w.casefold() for w in _WORD.findall(str(qa.get("answer", ""))) if len(w) >= 4)
    return [w for w in words if re.search(rf"\b{re.escape(w)}\b", held)]


def terms_in(terms: Sequence[str], text: str) -> bool:
    folded = " ".join(text.casefold().split())
    return all(" ".join(t.split()) in folded for t in terms)


def question_of(qa: dict[str, Any], speakers: str, spelling: str) -> str:
    if spelling == "user":
        return str(qa.get("question_user") or in_voice(qa["question"], "user"))
    return str(qa.get("question_named", qa["question"]) if speakers == "named" else qa["question"])


def judge_marks(hits: Sequence[Any], qa: dict[str, Any], kind: str) -> tuple[int, int]:
    """(right, wrong) among the marked contexts that hold an evidence or an outdated message."""
    gold, old = set(qa["evidence"]), set(qa.get("previous") or ())
    if kind == "earlier":  # evidence = the outdated statement, ``later`` = the current one
        gold, old = set(qa.get("later") or ()), set(qa["evidence"])
    right = wrong = 0
    for h in hits:
        if h.latest is None:
            continue
        ids = set(h.context.turn_ids)
        current, outdated = bool(ids & gold), bool(ids & old)
        if kind not in ("current", "earlier", "stable") or not (current or outdated):
            continue
        if h.latest is True:
            right, wrong = (right + 1, wrong) if current else (right, wrong + 1)
        else:
            right, wrong = (right + 1, wrong) if outdated and not current else (right, wrong + 1)
    return right, wrong


def recall(gold: set[str], found: set[str]) -> float:
    return len(gold & found) / len(gold) if gold else 0.0


def evaluate(
    paths: Sequence[str],
    speakers: str,
    variants: Sequence[str],
    verbose: bool,
    batch: MemoryBatch | None = None,
    base: Settings | None = None,
    spelling: str = "third",
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    rows: list[dict[str, Any]] = []
    sizes: dict[str, list[float]] = defaultdict(list)
    for memory, user, sample, baseline in loaded(paths, speakers, batch, base):
        for qa in sample["qa"]:
            question = question_of(qa, speakers, spelling)
            gold = set(qa["evidence"])
            kind = kind_of(qa)
            row: dict[str, Any] = {"sample": user, "kind": kind, "question": question}
            terms = answer_terms(qa, " ".join(baseline.text_of(t) for t in gold))
            row["terms"] = terms
            message_text, message_ids = baseline.block(question, BLOCK)
            row["message:terms4k"] = bool(terms) and terms_in(terms, message_text)
            row["message:ev4k"] = len(gold & message_ids)
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
                row[f"{variant}:prompt4k"] = gold <= prompt_turns(result, BLOCK)
                block = result.prompt(max_chars=BLOCK)
                row[f"{variant}:terms4k"] = bool(terms) and terms_in(terms, block.text)
                row[f"{variant}:msgs4k"] = len(set(block.turn_ids))
                row[f"{variant}:ev4k"] = len(gold & set(block.turn_ids))
                row[f"{variant}:marks"] = judge_marks(hits, qa, kind)
                if verbose and variant == variants[0] and terms and not row[f"{variant}:terms4k"]:
                    print(f"  terms miss [{kind}] {user}: {question} terms={terms} gold={sorted(gold)}")
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
    lines.append("")
    with_terms = [r for r in rows if r["terms"]]
    cells = [f"answer terms inside the {BLOCK:,}-character block ({len(with_terms)} questions with terms):"]
    for name in ("message", *variants):
        cells.append(f"{name} {sum(bool(r[f'{name}:terms4k']) for r in with_terms)}")
    lines.append("  ".join(cells))
    for v in variants:
        msgs = np.mean([r[f"{v}:msgs4k"] for r in rows])
        ev = sum(r[f"{v}:ev4k"] for r in rows)
        right = sum(r[f"{v}:marks"][0] for r in rows)
        wrong = sum(r[f"{v}:marks"][1] for r in rows)
        precision = f"{right / (right + wrong):.3f}" if right + wrong else "-"
        lines.append(
            f"{v}: messages per block {msgs:.1f}, evidence messages shown {ev} (message-level "
            f"{sum(r['message:ev4k'] for r in rows)}); marks judged {right + wrong}, right {right}, "
            f"precision {precision}"
        )
    lines.append("mean context characters of a default search: " + ", ".join(f"{v} {c:,.0f}" for v, c in chars.items()))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--speakers", choices=("roles", "named"), default="roles")
    parser.add_argument("--spelling", choices=("third", "user"), default="third")
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
    rows, chars = evaluate(args.data, args.speakers, variants, args.verbose, batch, base, args.spelling)
    print(report(rows, variants, chars))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
