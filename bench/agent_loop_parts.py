"""Where one turn of the agent loop goes, anchormem and Mem0 side by side: ``bench/agent_loop_mem0.py``'s run (the
same messages, the sides alternating exchange by exchange) with each side's calls broken into parts.

    PYTHONPATH=src .venv/bin/python bench/agent_loop_parts.py --mem0-python /work/mem0venv/bin/python
        [--data FILE ...] [--messages N] [--json OUT]

anchormem: the wall-clock time of each step of an add (turns placed and stored, windows re-cut, extraction, the
facts' embedding, store writes by method, linking, the snapshot grown, the history written) and of a search (the
snapshot, the query's embedding, retrieval), summed per call (an inner call counts in its outer one too), with the
texts embedded, their tokens, and the tokens one padded batch of them would have computed. Mem0 (``mem0_side.py
--parts``): its embedder, vector store (Qdrant) and history database calls, the texts and tokens embedded. Medians
over every search, every reply's add and every user message's add; the load is printed. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from agent_loop_mem0 import DATA, DEFAULT_DATA, Mem0Side, Message, OursSide, load_messages
from profile_add import Spent
from profile_add import Timer as CallTimer

import anchormem.index.cache as cache_module
import anchormem.ingest.ingester as ingester_module
import anchormem.ingest.pipeline as pipeline_module
import anchormem.search.searcher as searcher_module
from anchormem.embed.onnx_runtime import OnnxMiniLMEmbedder


class Timer(CallTimer):
    """``profile_add``'s timer (the wall-clock time of wrapped calls, summed by name), counting what the embedder is
    given too."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []  # the texts embedded since the last take()

    def take(self) -> Spent:
        self.texts = []
        return super().take()


def one_thread(embedder: OnnxMiniLMEmbedder, texts: list[str]) -> float:
    """Seconds to embed ``texts`` each alone on one thread, one after the other (what the method must embed, with
    no help from a second core)."""
    if not texts:
        return 0.0
    runtime = embedder._load()
    feeds = embedder._each(runtime, texts)
    start = time.perf_counter()
    for f in feeds:
        embedder._run(runtime.session, f)
    return time.perf_counter() - start


def instrument(ours: OursSide, timer: Timer) -> None:
    store = ours.mem.store
    for name in dir(type(store)):
        value = getattr(store, name, None)
        if not name.startswith("_") and callable(value):
            setattr(store, name, timer.wrap(f"store.{name}", value))
    pipe = pipeline_module.IngestPipeline
    for name in ("_extract", "_link", "_save"):
        setattr(pipe, name, timer.wrap(f"pipeline.{name}", getattr(pipe, name)))
    for name in ("placed", "rechunk", "extract_offline", "build_clusters"):
        setattr(pipeline_module, name, timer.wrap(f"pipeline: {name}", getattr(pipeline_module, name)))
    cache_module.evolve = timer.wrap("snapshot: evolve", cache_module.evolve)  # type: ignore[assignment]
    snapshots = cache_module.SnapshotCache
    snapshots._load = timer.wrap("snapshot: load", snapshots._load)  # type: ignore[method-assign]
    snapshots.covering = timer.wrap("snapshot: covering (search)", snapshots.covering)  # type: ignore[method-assign]
    ingester_module.chronicle.record_add = timer.wrap("history: record_add", ingester_module.chronicle.record_add)
    searcher_module.query_vectors = timer.wrap("search: query_vectors", searcher_module.query_vectors)
    searcher_module.retrieve = timer.wrap("search: retrieve", searcher_module.retrieve)
    onnx_embed = OnnxMiniLMEmbedder.embed
    onnx_run = OnnxMiniLMEmbedder._run
    seen: set[str] = set()  # every text embedded so far in the run
    timer.texts = []

    def embed(self: OnnxMiniLMEmbedder, texts: Any) -> Any:
        tokenizer = self._load().tokenizer
        lengths = [sum(e.attention_mask) for e in tokenizer.encode_batch(list(texts))] if texts else [0]
        timer.spent["(count) texts embedded"] += len(texts)
        timer.spent["(count) tokens embedded"] += sum(lengths)
        timer.spent["(count) tokens if one padded batch"] += max(lengths) * len(texts)
        timer.spent["(count) embedder calls"] += 1
        timer.spent["(count) texts embedded before in this run"] += sum(t in seen for t in texts)
        timer.spent["(count) texts repeated within the call"] += len(texts) - len(set(texts))
        seen.update(texts)
        timer.texts.extend(texts)
        start = time.perf_counter()
        try:
            return onnx_embed(self, texts)
        finally:
            timer.spent["embed: onnx embedder"] += time.perf_counter() - start

    def run(session: Any, feeds: dict[str, np.ndarray]) -> Any:
        ids = feeds["input_ids"]
        timer.spent["(count) session runs"] += 1
        timer.spent["(count) tokens computed (padding included)"] += ids.shape[0] * ids.shape[1]
        start = time.perf_counter()
        try:
            return onnx_run(session, feeds)
        finally:
            timer.spent["embed: session.run (summed over threads)"] += time.perf_counter() - start

    OnnxMiniLMEmbedder.embed = embed  # type: ignore[method-assign]
    OnnxMiniLMEmbedder._run = staticmethod(run)  # type: ignore[method-assign]


def median_rows(samples: list[Spent], totals: list[float]) -> list[tuple[str, float, float]]:
    """(part, median over the calls, sum over the calls) per part, the slowest first, the counts last."""
    names = sorted({k for p in samples for k in p})
    rows = [("**whole call**", float(np.median(totals)), float(np.sum(totals)))]
    for name in names:
        got = [p.get(name, 0.0) for p in samples]
        rows.append((name, float(np.median(got)), float(np.sum(got))))
    return sorted(rows, key=lambda r: (r[0].startswith("(count)"), -r[1]))


def show(title: str, rows: list[tuple[str, float, float]]) -> None:
    print(f"\n### {title}\n\n| part | median | sum over the calls |\n|---|---|---|")
    for name, value, total in rows:
        if name.startswith("(count)"):
            print(f"| {name} | {value:.1f} | {total:.0f} |")
        else:
            print(f"| {name} | {value * 1000:.2f} ms | {total:.2f} s |")


def floor_report(
    ours: dict[str, tuple[list[Spent], list[float]]],
    theirs: dict[str, tuple[list[Spent], list[float]]],
    floors: dict[str, list[float]],
) -> None:
    """Per turn (a search, then a reply's add): Mem0's whole turn against the embedding anchormem's turn must do
    (the query's texts and the reply's facts, each alone, one thread), and against half of it (two cores, perfectly
    shared); the turns paired as they ran."""
    mem0_turn = np.asarray(theirs["search"][1][: len(theirs["add_reply"][1])]) + np.asarray(theirs["add_reply"][1])
    n = min(len(floors["search"]), len(floors["add_reply"]), len(mem0_turn))
    mem0_turn = mem0_turn[:n]
    need = np.asarray(floors["search"][:n]) + np.asarray(floors["add_reply"][:n])
    ours_turn = np.asarray(ours["search"][1][:n]) + np.asarray(ours["add_reply"][1][:n])
    print(f"\n### The floor: the embedding the method requires, per turn ({n} turns, medians)\n")
    print("| what | median ms |\n|---|---|")
    print(f"| anchormem turn as run (search + reply's add) | {1000 * float(np.median(ours_turn)):.1f} |")
    print(
        "| its required embedding, one thread (query + reply's facts, each alone) | "
        f"{1000 * float(np.median(need)):.1f} |"
    )
    print(f"| ... of which the reply's facts | {1000 * float(np.median(floors['add_reply'][:n])):.1f} |")
    print(f"| Mem0 turn as run (search + reply's add) | {1000 * float(np.median(mem0_turn)):.1f} |")
    print(f"\nMem0 ÷ anchormem as run: {float(np.median(mem0_turn / ours_turn)):.2f}× (median of per-turn ratios)")
    print(f"Mem0 turn ÷ required embedding, one thread: {float(np.median(mem0_turn / need)):.2f}× (the most anchormem")
    print(f"  could reach on one thread); two cores perfectly shared: {float(np.median(mem0_turn / (need / 2))):.2f}×")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--mem0-python", required=True)
    ap.add_argument("--data", nargs="*", type=Path)
    ap.add_argument("--messages", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    msgs: list[Message] = load_messages(args.data or [DATA / name for name in DEFAULT_DATA])
    msgs = msgs[: args.messages] if args.messages else msgs
    from anchormem.embed.bundled import minilm_model_dir
    from anchormem.embed.onnx_export import ensure_onnx

    model_dir = minilm_model_dir()
    onnx = ensure_onnx(model_dir)
    print(f"# bench/agent_loop_parts.py {' '.join(sys.argv[1:])}")
    print(
        f"{len(msgs)} messages, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at {time.strftime('%H:%M:%S')}"
    )
    timer = Timer()
    ours: dict[str, tuple[list[Spent], list[float]]] = {k: ([], []) for k in ("search", "add_reply", "add_user")}
    floor = OnnxMiniLMEmbedder(batch_threads=1)  # the floor: the same texts again, one thread, right after
    floors: dict[str, list[float]] = {"search": [], "add_reply": []}
    theirs: dict[str, tuple[list[Spent], list[float]]] = {k: ([], []) for k in ("search", "add_reply", "add_user")}
    with tempfile.TemporaryDirectory(prefix="agent-loop-parts-") as tmp:
        folder = Path(tmp)
        (folder / "mem0").mkdir()
        mem0 = Mem0Side(args.mem0_python, folder / "mem0", "onnx", onnx, model_dir, 1, ("--parts",))
        mine = OursSide(folder, None)
        instrument(mine, timer)
        try:
            for k, m in enumerate(msgs):
                first_ours = (k // 2) % 2 == 0
                for side in ("ours", "mem0") if first_ours else ("mem0", "ours"):
                    runner: Any = mine if side == "ours" else mem0
                    out = ours if side == "ours" else theirs
                    calls = [("search", m.content)] if m.role == "user" else []
                    calls.append(("add_user" if m.role == "user" else "add_reply", ""))
                    for kind, query in calls:
                        timer.take()
                        seconds = runner.search(m.user, query) if kind == "search" else runner.add(m)
                        texts = list(timer.texts)
                        parts = timer.take() if side == "ours" else dict(mem0.last.get("parts", {}))
                        if side == "ours" and kind in floors:
                            floors[kind].append(one_thread(floor, texts))
                            timer.take()
                        out[kind][0].append(parts)
                        out[kind][1].append(seconds)
        finally:
            mem0.close()
            mine.mem.close()
    labels = {
        "search": "search with the user message",
        "add_reply": "add of a reply",
        "add_user": "add of a user message",
    }
    result: dict[str, Any] = {}
    for kind, label in labels.items():
        for name, got in (("anchormem", ours), ("Mem0", theirs)):
            rows = median_rows(*got[kind])
            result[f"{name} {kind}"] = rows
            show(f"{name}: {label} ({len(got[kind][1])} calls, medians)", rows)
    floor_report(ours, theirs, floors)
    print(f"\nload average {os.getloadavg()[0]:.1f} at {time.strftime('%H:%M:%S')}")
    if args.json:
        args.json.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
