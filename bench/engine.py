"""Engine benchmarks for BENCHMARKS.md: ingest from precomputed facts, and query latency.

    .venv/bin/python bench/engine.py --data ../shared/data [--out bench/out/engine.json]

1. Ingest the five pack conversations from their precomputed facts (no LLM; extractive
   events) and compare with embedding the same fact texts alone, with the same embedder,
   in the same run (embed-only is timed before and after the ingest; the median is used).
2. Query latency of ``Memory.search`` (embedding + search + assembly) over the LoCoMo
   questions of those conversations, against a plain path measured in the same run, in
   alternating blocks of 50 questions:
   sentence-transformers ``encode`` + numpy top-k over the same fact vectors + mapping to
   contexts. The cosine between the two paths' query vectors is reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from anchormem.config import Settings
from anchormem.embed.factory import open_embedder
from anchormem.embed.minilm import MiniLMEmbedder
from anchormem.eval.locomo import add_locomo
from anchormem.memory import Memory
from anchormem.model import Scope

PACK_SAMPLES = ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
BLOCK = 50  # questions timed per path before switching to the other


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def bench_ingest(data: Path, store_dir: Path) -> tuple[dict[str, float], Memory]:
    settings = Settings.load(env={}, store=str(store_dir / "bench.db"), cache=str(store_dir / "cache.db"))
    embedder = open_embedder(settings.embed, query_cache_size=0)
    embedder.embed(["warm-up"])  # model load and ONNX export are not part of either timing
    mem = Memory(settings, embedder=embedder)
    facts_file = data / "locomo_facts_qwen2.5-7b.jsonl"
    texts = [
        " ".join(f.split())
        for line in facts_file.read_text().splitlines()
        for f in json.loads(line)["facts"]
        if f.strip()
    ]

    def embed_only() -> float:
        t = time.perf_counter()
        for i in range(0, len(texts), 512):
            embedder.embed(texts[i : i + 512])
        return time.perf_counter() - t

    before = embed_only()
    t0 = time.perf_counter()
    facts = events = 0
    for sid in PACK_SAMPLES:
        rep = add_locomo(mem, data / "locomo10.json", user_id=sid, sample=sid, facts=facts_file)
        facts += rep.facts_added
        events += rep.events_added
    ingest = time.perf_counter() - t0
    after = embed_only()
    embed_s = statistics.median([before, after])
    return {
        "facts": facts,
        "fact_texts_embedded": len(texts),
        "events": events,
        "ingest_s": ingest,
        "facts_per_s": facts / ingest,
        "embed_only_s_before": before,
        "embed_only_s_after": after,
        "ratio_ingest_over_embed": ingest / embed_s,
    }, mem


def bench_query(data: Path, mem: Memory, limit: int) -> dict[str, float]:
    locomo = {s["sample_id"]: s for s in json.loads((data / "locomo10.json").read_text())}
    questions = [
        (sid, qa["question"]) for sid in PACK_SAMPLES for qa in locomo[sid]["qa"] if qa.get("category") in (1, 2, 3, 4)
    ][:limit]
    plain = MiniLMEmbedder()  # sentence-transformers, the plain path
    plain.embed(["warm-up"])
    snaps = {sid: mem.snapshot(Scope(sid)) for sid in PACK_SAMPLES}
    for sid, q in questions[:20]:  # warm both paths
        mem.search(q + " warm", user_id=sid)
        plain.embed([q + " warm"])
    ours: list[float] = []
    base: list[float] = []
    cosines: list[float] = []
    # Blocks of BLOCK questions, each path in turn (the first path alternating): a call of one path is not
    # timed right after a call of the other, whose runtime's worker threads may still be spinning.
    for b, start in enumerate(range(0, len(questions), BLOCK)):
        block = questions[start : start + BLOCK]
        for path in ("ours", "plain") if b % 2 == 0 else ("plain", "ours"):
            for sid, q in block:
                if path == "ours":
                    t = time.perf_counter()
                    mem.search(q, user_id=sid)
                    ours.append(time.perf_counter() - t)
                    continue
                snap = snaps[sid]
                t = time.perf_counter()
                v = plain.embed([q])[0]
                scores = snap.fact_vectors @ v
                top = np.argpartition(-scores, 10)[:10]
                top = top[np.argsort(-scores[top])]
                _contexts = list(dict.fromkeys(snap.facts[i].context_id for i in top))
                base.append(time.perf_counter() - t)
                cosines.append(float(mem.embedder.embed([q])[0] @ v))
    return {
        "questions": len(questions),
        "ours_median_ms": 1000 * statistics.median(ours),
        "ours_p90_ms": 1000 * _pct(ours, 90),
        "plain_median_ms": 1000 * statistics.median(base),
        "plain_p90_ms": 1000 * _pct(base, 90),
        "speedup_median": statistics.median(base) / statistics.median(ours),
        "min_cosine": min(cosines),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--questions", type=int, default=800)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ingest, mem = bench_ingest(args.data, Path(tmp))
        query = bench_query(args.data, mem, args.questions)
        mem.close()
    result = {"ingest": ingest, "query": query, "command": " ".join(["bench/engine.py", *(argv or sys.argv[1:])])}
    print("## Ingest of the five pack conversations from precomputed facts (no LLM)\n")
    print("| facts | events | ingest s | facts/s | embed-only s (before / after) | ingest ÷ embed-only |")
    print("|---|---|---|---|---|---|")
    i = ingest
    print(
        f"| {i['facts']:.0f} | {i['events']:.0f} | {i['ingest_s']:.2f} | {i['facts_per_s']:.0f} | "
        f"{i['embed_only_s_before']:.2f} / {i['embed_only_s_after']:.2f} | {i['ratio_ingest_over_embed']:.2f}× |"
    )
    q = query
    print(f"\n## Query latency over {q['questions']:.0f} LoCoMo questions\n")
    print("| path | median ms | p90 ms |\n|---|---|---|")
    print(f"| anchormem search (embed + search + assembly) | {q['ours_median_ms']:.2f} | {q['ours_p90_ms']:.2f} |")
    print(f"| plain sentence-transformers + numpy top-k | {q['plain_median_ms']:.2f} | {q['plain_p90_ms']:.2f} |")
    print(
        f"\nspeed-up (median): {q['speedup_median']:.2f}×; min cosine between the paths' query vectors: "
        f"{q['min_cosine']:.5f}"
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
