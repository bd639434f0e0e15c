"""One search through ``Memory`` on one PostgreSQL scope of 200,000 facts: the in-process matrix against the
scope's HNSW index (``anchormem.index.ann``).

    PYTHONPATH=src .venv/bin/python bench/pg_ann_search.py [--facts 200000] [--dim 384] [--processes 3]
        [--searches 20] [--candidates 1000,200] [--ef-construction 128] [--shared-buffers 2GB]
        [--pg-url URL] [--dir DIR]

One scope (``user-big``) gets ``--facts`` facts (clustered unit vectors, as ``bench/pg_hnsw.py`` writes them,
one context per 20 facts, each context's text a few words of its topic), then its HNSW index
(``PostgresStore.build_ann_index``). Then, for each path in turn, ``--processes`` fresh processes each open a
``Memory`` on the store (``retrieval.ann_index`` false: the matrix; true: the index) with a synthetic embedder
(a query's vector drawn from the facts' mixture, seeded by its text) and time:

- the first search (the snapshot's load included: the whole fact matrix, or the facts as records) and the
  resident memory the process gained by it;
- ``--searches`` more searches of other questions (the snapshot cached): median and p90;
- the contexts both paths return for the same questions (overlap of the top 10, over all questions).

Prints a markdown table and the command.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pg import given_server, new_database  # bench/ is on the path when this file runs as a script
from pg_hnsw import BIG, _pool, copy_facts
from pg_hnsw_parts import Topics, _rss, _stats, embedded_postgres

from anchormem.model import Context, Turn
from anchormem.store.postgres import PostgresStore

TOPIC_WORDS = 2_000  # a vocabulary for the contexts' texts
BATCH = 2_000


class SyntheticEmbedder:
    """A text's vector: a draw from the facts' mixture, seeded by the text (same text, same vector)."""

    def __init__(self, dim: int) -> None:
        self._dim = dim
        self._topics = Topics(dim)

    @property
    def name(self) -> str:
        return f"synthetic-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), np.float32)
        rows = [self._topics.sample(np.random.default_rng(zlib.crc32(t.encode())), 1)[0] for t in texts]
        return np.asarray(rows, dtype=np.float32)


def _words(i: int) -> str:
    rng = np.random.default_rng(i)
    return " ".join(f"w{int(w)}" for w in rng.integers(0, TOPIC_WORDS, 12))


def fill(store: PostgresStore, facts: int, dim: int) -> None:
    """``facts`` facts of ``BIG``, one context (and turn) per 20."""
    contexts = (facts + 19) // 20
    for lo in range(0, contexts, BATCH):
        ids = range(lo, min(contexts, lo + BATCH))
        turns = [Turn(id=f"t{i}", session=f"s{i // 50}", position=i, speaker="user", text=_words(i)) for i in ids]
        store.add_turns(BIG, turns)
        store.add_contexts(
            BIG,
            [
                Context(id=f"c{i}", session=f"s{i // 50}", position=i, turn_ids=(f"t{i}",), date=None, text=_words(i))
                for i in ids
            ],
        )
    rng = np.random.default_rng(3)
    data = Topics(dim)
    for lo in range(0, facts, 200_000):
        copy_facts(store, BIG, lo, data.sample(rng, min(200_000, facts - lo)))
    with _pool(store).connection() as conn:
        conn.execute("VACUUM ANALYZE")


QUESTIONS = [f"question {i}: w{i} w{i * 7 % TOPIC_WORDS} w{i * 13 % TOPIC_WORDS}?" for i in range(200)]


def one_process(url: str, dim: int, candidates: int, searches: int, seed: int) -> dict[str, Any]:
    """Run in a fresh process: the first search (load included), then ``searches`` more (``candidates`` 0: the
    matrix; else the index, reading that many nearest facts)."""
    code = (
        "import json, sys, gc, time; sys.path.insert(0, 'bench'); import pg_ann_search as b; "
        f"print(json.dumps(b.searches_here({url!r}, {dim}, {candidates}, {searches}, {seed})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=os.environ)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def searches_here(url: str, dim: int, candidates: int, searches: int, seed: int) -> dict[str, Any]:
    import gc

    from anchormem.config import Settings
    from anchormem.memory import Memory

    options = {"retrieval__ann_candidates": candidates} if candidates else {}
    settings = Settings.load(env={}, store=url, retrieval__ann_index=bool(candidates), **options)
    with Memory(settings, embedder=SyntheticEmbedder(dim)) as mem:
        mem.store.version(BIG)  # the connection pool opened before the clock starts
        gc.collect()
        r0 = _rss()
        first_q = QUESTIONS[seed]
        t = time.perf_counter()
        first = mem.search(first_q, user_id=BIG.user_id)
        first_s = time.perf_counter() - t
        rss = _rss() - r0
        times, found = [], {first_q: [h.context.id for h in first.contexts]}
        for q in QUESTIONS[100 : 100 + searches]:
            t = time.perf_counter()
            result = mem.search(q, user_id=BIG.user_id)
            times.append(time.perf_counter() - t)
            found[q] = [h.context.id for h in result.contexts]
        vectors = type(mem._snapshots.get(BIG).fact_vectors).__name__
    return {"first": first_s, "rss": rss, "warm": times, "found": found, "vectors": vectors}


def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    runs: dict[int, list[dict[str, Any]]] = {c: [] for c in [0, *args.candidates]}
    for p in range(args.processes):  # the paths in turn, so all see the same load on a shared machine
        for c in runs:
            runs[c].append(one_process(url, args.dim, c, args.searches, p))
            print(json.dumps({"candidates": c, "first": runs[c][-1]["first"]}), file=sys.stderr)
    for c, rs in runs.items():
        name = f"index, {c} candidates" if c else "matrix"
        warm = [t for r in rs for t in r["warm"]]
        out[name] = {
            "first": float(np.median([r["first"] for r in rs])),
            "rss": float(np.median([r["rss"] for r in rs])),
            "warm": _stats(warm),
            "vectors": rs[0]["vectors"],
            "overlap": _overlap(runs[0][0]["found"], rs[0]["found"]),
        }
    return out


def _overlap(a: dict[str, list[str]], b: dict[str, list[str]]) -> float:
    """The mean share of the matrix path's contexts the other path returned too, over the questions."""
    return float(np.mean([len(set(a[q]) & set(b[q])) / max(1, len(a[q])) for q in a if q in b]))


def report(facts: int, build_s: float, m: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        f"One scope of {facts:,} facts ({args.dim} dims), one search through Memory, {args.processes} fresh processes "
        f"per path, {args.searches} more searches each; index built in {build_s:.0f} s "
        f"(ef_construction {args.ef_construction})",
        "",
        "| path | first search in a new process (load included) | memory it added | later searches, median / p90 "
        "| contexts in common with the matrix's |",
        "|---|---|---|---|---|",
    ]
    for name, r in m.items():
        lines.append(
            f"| {name} ({r['vectors']}) | {r['first']:.2f} s | {r['rss'] / 2**20:+.0f} MB | "
            f"{r['warm'][0]:.1f} / {r['warm'][1]:.1f} ms | {r['overlap']:.3f} |"
        )
    return "\n".join(lines)


def run(url: str, args: argparse.Namespace) -> str:
    store = PostgresStore(url)
    store.set_meta("embedder", f"synthetic-{args.dim}")
    store.set_meta("embedder_dim", str(args.dim))
    t = time.perf_counter()
    fill(store, args.facts, args.dim)
    print(f"filled in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    t = time.perf_counter()
    store.build_ann_index(BIG, ef_construction=args.ef_construction, maintenance_work_mem=args.maintenance_work_mem)
    build_s = time.perf_counter() - t
    print(f"index built in {build_s:.0f} s", file=sys.stderr, flush=True)
    store.close()
    return report(args.facts, build_s, measure(url, args), args)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--facts", type=int, default=200_000)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--processes", type=int, default=3)
    p.add_argument("--searches", type=int, default=20)
    p.add_argument("--candidates", default="1000", help="retrieval.ann_candidates of the index path (a list)")
    p.add_argument("--ef-construction", type=int, default=128)
    p.add_argument("--maintenance-work-mem", default="2GB")
    p.add_argument("--shared-buffers", default="2GB", help="of the embedded server")
    p.add_argument("--pg-url", help="an existing server's admin URL (default: start embedded-postgres)")
    p.add_argument("--dir", help="folder for the embedded server (default: a temp folder)")
    args = p.parse_args(argv)
    args.candidates = [int(c) for c in args.candidates.split(",")]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        server = embedded_postgres(Path(tmp) / "pg", args.shared_buffers) if args.pg_url is None else None
        with server or given_server(args.pg_url) as admin:
            text = run(new_database(admin, "pg_ann_search"), args)
    print(text)
    print(
        f"\nTotal {time.perf_counter() - t0:.0f} s. Command: PYTHONPATH=src .venv/bin/python bench/pg_ann_search.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    )


if __name__ == "__main__":
    main()
