"""Incremental growth on LoCoMo: (1) evidence recall when a conversation is added session by session
against all at once, with the pack facts (events formed by the event graph, extractive), on the pack's
five conversations; (2) the non-LLM cost of adding one session to a ~600-turn memory against a full
rebuild (offline extractor).

    PYTHONPATH=src .venv/bin/python bench/incremental.py [--embed minilm|hash] [--part recall|cost|both]

Reads /work/shared/data (not shipped). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.factory import open_embedder
from anchormem.embed.protocol import Embedder
from anchormem.eval.evidence import clean_evidence, evidence_recall
from anchormem.eval.locomo import add_conversation
from anchormem.ingest.sources import Conversation, load_conversations
from anchormem.memory import Memory

DATA = Path("/work/shared/data")
PACK = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
FACTS = DATA / "locomo_facts_qwen2.5-7b.jsonl"


def _memory(folder: Path, name: str, embedder: Embedder, backend: str) -> Memory:
    return Memory(Settings.load(env={}, store=str(folder / name), embed__backend=backend), embedder=embedder)


def _by_session(conv: Conversation) -> list[Conversation]:
    return [Conversation(conv.name, tuple(t for t in conv.turns if t.session == s)) for s in conv.sessions]


def recall(mem: Memory, sample: dict, conv: Conversation) -> list[float]:
    turn_ids = {t.id for t in conv.turns}
    out = []
    for qa in sample["qa"]:
        if qa.get("category") not in (1, 2, 3, 4):
            continue
        gold = clean_evidence(qa.get("evidence", []), turn_ids)
        hits = mem.search(qa["question"], user_id="bench", run_id=conv.name).turn_ids
        value = evidence_recall(gold, hits)
        if value is not None:
            out.append(value)
    return out


def part_recall(embedder: Embedder, backend: str) -> None:
    samples = {s["sample_id"]: s for s in json.loads((DATA / "locomo10.json").read_text())}
    convs = {c.name: c for c in load_conversations(DATA / "locomo10.json") if c.name in PACK}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with (
            _memory(folder, "once.db", embedder, backend) as once,
            _memory(folder, "steps.db", embedder, backend) as steps,
        ):
            for name in PACK:
                conv = convs[name]
                add_conversation(once, conv, FACTS, sample_id=conv.name, user_id="bench", run_id=name)
                calls = []
                for part in _by_session(conv):
                    report = add_conversation(steps, part, FACTS, sample_id=part.name, user_id="bench", run_id=name)
                    calls.append(report.llm_calls)
                a, b = recall(once, samples[name], conv), recall(steps, samples[name], conv)
                ev_a = len(once.events(user_id="bench", run_id=name))
                ev_b = len(steps.events(user_id="bench", run_id=name))
                rows.append((name, statistics.mean(a), statistics.mean(b), len(a), ev_a, ev_b))
                print(
                    f"{name}: questions {len(a)}  recall all-at-once {statistics.mean(a):.4f}  "
                    f"session-by-session {statistics.mean(b):.4f}  events {ev_a} vs {ev_b}  "
                    f"sessions {len(calls)}  llm calls per add {max(calls)}",
                    flush=True,
                )
    n = sum(r[3] for r in rows)
    wa = sum(r[1] * r[3] for r in rows) / n
    wb = sum(r[2] * r[3] for r in rows) / n
    print(
        f"ALL five: {n} questions  recall all-at-once {wa:.4f}  session-by-session {wb:.4f}  difference {wb - wa:+.4f}"
    )


def part_cost(embedder: Embedder, backend: str, repeats: int = 3) -> None:
    conv = next(c for c in load_conversations(DATA / "locomo10.json") if c.name == "conv-42")  # 629 turns
    sessions = _by_session(conv)
    head = Conversation(conv.name, tuple(t for s in sessions[:-1] for t in s.turns))
    last = sessions[-1]
    full_times, inc_times = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            with _memory(folder, "full.db", embedder, backend) as mem:
                started = time.perf_counter()
                mem.add(conv, user_id="bench")
                full_times.append(time.perf_counter() - started)
            with _memory(folder, "inc.db", embedder, backend) as mem:
                mem.add(head, user_id="bench")
                started = time.perf_counter()
                report = mem.add(last, user_id="bench")
                inc_times.append(time.perf_counter() - started)
    full, inc = statistics.median(full_times), statistics.median(inc_times)
    print(
        f"cost: memory of {len(conv.turns)} turns, last session {len(last.turns)} turns "
        f"({report.contexts_added} contexts, {report.facts_added} facts, {report.events_added} events, "
        f"{report.llm_calls} LLM calls)"
    )
    print(
        f"cost: full rebuild {full:.3f} s  add one session {inc:.3f} s  ratio {inc / full:.3f} "
        f"(median of {repeats}, embedder {embedder.name})"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embed", default="minilm", choices=["minilm", "hash"])
    ap.add_argument("--part", default="both", choices=["recall", "cost", "both"])
    args = ap.parse_args()
    settings = Settings.load(env={}, embed__backend=args.embed)
    embedder = open_embedder(settings.embed)
    if args.part in ("recall", "both"):
        part_recall(embedder, args.embed)
    if args.part in ("cost", "both"):
        part_cost(embedder, args.embed)


if __name__ == "__main__":
    main()
