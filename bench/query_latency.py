"""Single-query embedding latency: sentence-transformers (torch) vs onnxruntime, same run.

    PYTHONPATH=src .venv/bin/python bench/query_latency.py [--queries 200] [--warmup 20]

Each query is embedded alone (as at question time) by every runtime in turn, so drift
on the machine hits all of them alike. Prints a markdown table (median / p90 / mean
milliseconds) and the cosine between the torch and onnxruntime vectors.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shlex
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

from anchormem.embed.minilm import MiniLMEmbedder
from anchormem.embed.onnx_runtime import OnnxMiniLMEmbedder
from anchormem.embed.protocol import Embedder

NAMES = ["Caroline", "Melanie", "Jon", "Gina", "Audrey", "Andrew", "Nate", "Joanna", "Tim", "John"]
TOPICS = [
    "the LGBTQ support group",
    "her pottery class",
    "the charity race",
    "his new dance studio",
    "adopting a dog",
    "the camping trip",
    "a painting of a sunset",
    "the job interview",
    "her counseling career",
    "the family road trip",
    "a book about self-acceptance",
    "the violin lessons",
]
TEMPLATES = [
    "When did {n} go to {t}?",
    "What did {n} say about {t}?",
    "Why did {n} decide to start {t}?",
    "How does {n} feel about {t}?",
    "Who joined {n} at {t}?",
    "Would {n} likely recommend {t} to a friend?",
    "What happened after {n} mentioned {t} last month?",
    "{n}",
    "{t}",
]


def make_queries(count: int, seed: int = 13) -> list[str]:
    """Varied question-like texts, from one word to a few hundred tokens."""
    rng = random.Random(seed)
    queries: list[str] = []
    for i in range(count):
        text = rng.choice(TEMPLATES).format(n=rng.choice(NAMES), t=rng.choice(TOPICS))
        if i % 25 == 0:  # an occasional long one (beyond the 256-token window)
            text = " ".join(text for _ in range(40))
        elif i % 10 == 0:
            text += " Also, " + rng.choice(TEMPLATES).format(n=rng.choice(NAMES), t=rng.choice(TOPICS)).lower()
        queries.append(text)
    return queries


def time_one(embed: Callable[[list[str]], np.ndarray], text: str) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vector = embed([text])
    return (time.perf_counter() - start) * 1000.0, vector[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--onnx-cache", default=None, help="ONNX cache dir (default: a fresh temp dir)")
    args = parser.parse_args(argv)

    cache_dir = args.onnx_cache or tempfile.mkdtemp(prefix="anchormem-onnx-")
    runtimes: dict[str, Embedder] = {
        "sentence-transformers (torch)": MiniLMEmbedder(batch_size=1),
        "onnxruntime, 1 thread": OnnxMiniLMEmbedder(batch_size=1, cache_dir=cache_dir, threads=1),
        "onnxruntime, 2 threads": OnnxMiniLMEmbedder(batch_size=1, cache_dir=cache_dir, threads=2),
    }
    queries = make_queries(args.queries)
    warm = make_queries(args.warmup, seed=7)
    load_seconds: dict[str, float] = {}
    for label, embedder in runtimes.items():
        start = time.perf_counter()
        embedder.embed(warm[:1])
        load_seconds[label] = time.perf_counter() - start
        for text in warm:
            embedder.embed([text])

    millis: dict[str, list[float]] = {label: [] for label in runtimes}
    vectors: dict[str, list[np.ndarray]] = {label: [] for label in runtimes}
    for text in queries:
        for label, embedder in runtimes.items():
            ms, vector = time_one(embedder.embed, text)
            millis[label].append(ms)
            vectors[label].append(vector)

    torch_label = "sentence-transformers (torch)"
    reference = np.stack(vectors[torch_label])
    print(f"command: PYTHONPATH=src {shlex.join([sys.executable, *sys.argv])}")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"{len(queries)} single queries after {len(warm)} warm-up; first call (load/export) in parentheses\n"
    )
    print("| runtime | median ms | p90 ms | mean ms | cosine vs torch (min / mean) | first call s |")
    print("|---|---:|---:|---:|---:|---:|")
    for label in runtimes:
        times = np.array(millis[label])
        cos = np.sum(np.stack(vectors[label]) * reference, axis=1)
        print(
            f"| {label} | {np.median(times):.2f} | {np.percentile(times, 90):.2f} | {times.mean():.2f} "
            f"| {cos.min():.6f} / {cos.mean():.6f} | ({load_seconds[label]:.1f}) |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
