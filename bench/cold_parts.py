"""The parts of a new process's first search at ``bench/agent_loop.py``'s largest size: interpreter and imports,
opening the memory (connecting), reading the scope's snapshot file and checking it against the store, waiting
for the embedder, the query's embedding and the search itself, each timed inside the child process; and a cProfile
of the first search's main thread (``--profile``).

    PYTHONPATH=src .venv/bin/python bench/cold_parts.py [--size 50000] [--stores sqlite,postgres] [--runs 5]
        [--cache-dir /tmp/agent_loop_cache] [--profile]

A first process on a fresh copy writes the snapshot file (not counted); then ``--runs`` processes each read it,
one store after the other in turn. Medians per part. The stores are those ``bench/agent_loop.py`` builds (run it
first with the same ``--cache-dir`` and size). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from agent_loop_build import USER, PgServer, cached_path, copy_sqlite, log, pg_built, workload

CHILD = r"""
import json, sys, time
start = time.time()
import cProfile, io, pstats, threading
from anchormem import Memory
from anchormem.config import Settings
import anchormem.index.snapshot_file as sf
import anchormem.index.snapshot_files as sfs
imported = time.time()
parts = {}
def timed(name, fn):
    def inner(*a, **k):
        t = time.time()
        try:
            return fn(*a, **k)
        finally:
            parts[name] = parts.get(name, 0.0) + time.time() - t
    return inner
sf.load = timed("read snapshot file", sf.load)
sfs.SnapshotFiles._stamp = timed("stamp (token, schema)", sfs.SnapshotFiles._stamp)
sfs.SnapshotFiles._nonce = timed("nonce query", sfs.SnapshotFiles._nonce)
mem = Memory(Settings.load(env={}, store=sys.argv[1]))
opened = time.time()
version = mem.store.version
prof = cProfile.Profile() if sys.argv[5] == "1" else None
if prof: prof.enable()
embedder = mem.embedder
embed = timed("embed the query", embedder.embed)
embedder.embed = embed
t = time.time()
result = mem.search(sys.argv[3], user_id=sys.argv[2])
first = time.time()
if prof: prof.disable()
mem.search(sys.argv[4], user_id=sys.argv[2])
second = time.time()
out = {"start": start, "imported": imported, "opened": opened, "first": first, "second": second,
       "parts": parts, "contexts": len(result.contexts), "files_read": mem._snapshots.files.read}
if prof:
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(40)
    out["profile"] = s.getvalue()
print(json.dumps(out))
"""


def run_child(location: str, home: Path, q1: str, q2: str, profile: bool, src: str | None = None) -> dict:
    args = [sys.executable, "-c", CHILD, location, USER, q1, q2, "1" if profile else "0"]
    env = {**os.environ, "HOME": str(home)}
    if src is not None:  # another tree's code (the bench's helpers come from this one's bench/)
        env["PYTHONPATH"] = os.pathsep.join([src, *[p for p in env.get("PYTHONPATH", "").split(os.pathsep)[1:] if p]])
    spawned = time.time()
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    got = json.loads(done.stdout.strip().splitlines()[-1])
    row = {
        "to first result": got["first"] - spawned,
        "interpreter + imports": got["imported"] - spawned,
        "open (connect)": got["opened"] - got["imported"],
        "first search": got["first"] - got["opened"],
        **{k: v for k, v in got["parts"].items()},
        "second search": got["second"] - got["first"],
    }
    return {"row": row, "profile": got.get("profile"), "files_read": got.get("files_read")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--size", type=int, default=50000)
    ap.add_argument("--stores", default="sqlite,postgres")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cache-dir", default="/tmp/agent_loop_cache", type=Path)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the last run's first search")
    ap.add_argument(
        "--src",
        help="code trees to compare, comma-separated (e.g. /tmp/base/src,src): each store's processes run each "
        "tree's code in turn, reading the same snapshot file (the default: this process's PYTHONPATH)",
    )
    args = ap.parse_args()
    stores = [s for s in args.stores.split(",") if s]
    trees: list[str | None] = [t for t in args.src.split(",") if t] if args.src else [None]
    print(f"# bench/cold_parts.py: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, started {time.strftime('%H:%M:%S')}")
    work = workload()
    pg = PgServer(args.cache_dir / "pg", None) if "postgres" in stores else None
    try:
        with tempfile.TemporaryDirectory(dir=args.cache_dir, prefix="cold-") as tmp:
            folder = Path(tmp)
            where: dict[str, str] = {}
            homes: dict[str, Path] = {}
            for store in stores:
                if store == "sqlite":
                    path = folder / "cold.db"
                    copy_sqlite(cached_path(args.cache_dir, args.size), path)
                    where[store] = str(path)
                else:
                    assert pg is not None
                    where[store] = pg.copy(pg_built(args.size), "cold_parts_run")
                homes[store] = folder / f"home-{store}"
                homes[store].mkdir()
                (homes[store] / ".cache").symlink_to(Path("~/.cache").expanduser())
                first = run_child(where[store], homes[store], work.question(), work.question(), False)
                log(f"  {store}: first process (writes the file) {first['row']['to first result']:.2f} s")
            columns = [f"{s} {t}" if t else s for s in stores for t in trees]
            rows: dict[str, list[dict]] = {c: [] for c in columns}
            last: dict[str, dict] = {}
            for i in range(args.runs):
                for store in stores:
                    for tree in trees if i % 2 == 0 else trees[::-1]:
                        column = f"{store} {tree}" if tree else store
                        q1, q2 = work.question(), work.question()
                        got = run_child(where[store], homes[store], q1, q2, args.profile, tree)
                        rows[column].append(got["row"])
                        last[column] = got
                        log(f"  {column} run {i + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in got["row"].items()))
            stores = columns
            print(f"\n## Cold start at {args.size:,} turns from the snapshot file: medians of {args.runs} (s)\n")
            keys = sorted(
                {k for s in stores for r in rows[s] for k in r},
                key=lambda k: list(rows[stores[0]][0]).index(k) if k in rows[stores[0]][0] else 99,
            )
            print("| part | " + " | ".join(stores) + " |")
            print("|---|" + "---|" * len(stores))
            for k in keys:
                cells = [f"{np.median([r.get(k, 0.0) for r in rows[s]]):.3f}" for s in stores]
                print(f"| {k} | " + " | ".join(cells) + " |")
            for store in stores:
                print(f"\n{store}: files read in the last run: {last[store]['files_read']}")
                if args.profile and last[store]["profile"]:
                    print(f"\n### {store}: cProfile of the last run's first search\n")
                    print(last[store]["profile"][:8000])
            print(f"\nfinished {time.strftime('%H:%M:%S')}, load average {os.getloadavg()[0]:.1f}")
            if pg is not None:
                pg.drop("cold_parts_run")
    finally:
        if pg is not None:
            pg.stop()


if __name__ == "__main__":
    main()
