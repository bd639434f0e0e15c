"""Query cost beyond embedding on one big memory: the five pack conversations as one scope
(6,953 facts, 1,414 contexts, 568 events), every question, default recipe.

    OMP_NUM_THREADS=1 PYTHONPATH=src .venv/bin/python bench/recall/latency.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import recipes  # noqa: F401  (registers the experiment recipes)
from locomo_recall import build_pack, load_locomo

from anchormem.config import RetrievalSettings
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.search.retrieve import retrieve


def main() -> None:
    convs = build_pack(load_locomo())
    snap = ScopeSnapshot(
        [c for cv in convs for c in cv.snapshot.contexts],
        [f for cv in convs for f in cv.snapshot.facts],
        np.vstack([cv.snapshot.fact_vectors for cv in convs]),
        [e for cv in convs for e in cv.snapshot.events],
        np.vstack([cv.snapshot.event_vectors for cv in convs]),
    )
    t0 = time.perf_counter()
    snap.warm()
    build_ms = 1000 * (time.perf_counter() - t0)
    queries = [(q.text, v) for cv in convs for q, v in zip(cv.questions, cv.query_vectors, strict=True)]
    for variant in ("anchormem", "anchormem-v1", "paper", "bm25"):
        settings = RetrievalSettings(variant=variant)
        times = []
        for text, vec in queries:
            t = time.perf_counter()
            retrieve(snap, text, vec, settings)
            times.append(1000 * (time.perf_counter() - t))
        times.sort()
        print(
            f"{variant:10s} facts={len(snap.facts)} median={statistics.median(times):.2f}ms "
            f"p95={times[int(0.95 * len(times))]:.2f}ms (index build {build_ms:.0f} ms, once)"
        )


if __name__ == "__main__":
    main()
