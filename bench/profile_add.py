"""Where one add of one message spends its time, at each size of ``bench/agent_loop.py``'s memory: ``--adds`` adds
(each followed by a search, as the agent loop does; every size's memory open at once, one add of each in turn,
so a changing load weighs on every size alike) on a copy of the cached SQLite store (or of the built PostgreSQL
database), with the wall-clock time of each part of the add summed per add (store calls by method, the embedder,
growing the snapshot, finding neighbours for linking); medians over the adds after ``--warm`` warm-up adds (the
first add of a process builds the snapshot's linking index once). ``--cprofile`` prints a cProfile of the adds too.

    PYTHONPATH=src .venv/bin/python bench/profile_add.py [--sizes 1000,50000] [--adds 12] [--warm 2]
        [--store sqlite|postgres] [--cache-dir /tmp/agent_loop_cache] [--cprofile]

The stores are those ``bench/agent_loop.py`` builds (run it first with the same ``--cache-dir`` and sizes). The
sizes are measured in turn, ``--adds`` rounds each, one process. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from agent_loop_build import (
    USER,
    PgServer,
    Workload,
    cached_path,
    copy_sqlite,
    pg_built,
    settings_for,
    tail_of,
    workload,
)

import anchormem.index.cache as cache_module
import anchormem.index.neighbours as neighbours_module
import anchormem.ingest.link as link_module
from anchormem import Memory

Spent = dict[str, float]


class Timer:
    """Sums the wall-clock time of wrapped calls by name (an inner call is counted in its outer one too)."""

    def __init__(self) -> None:
        self.spent: Spent = defaultdict(float)

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent[name] += time.perf_counter() - start

        return timed

    def take(self) -> Spent:
        out, self.spent = dict(self.spent), defaultdict(float)
        return out


def instrument(mems: list[Memory], timer: Timer) -> None:
    for mem in mems:
        store = mem.store
        for name in dir(type(store)):
            if name.startswith("_") or name in ("journal",):
                continue
            value = getattr(store, name, None)
            if callable(value):
                setattr(store, name, timer.wrap(f"store.{name}", value))
        embedder = mem.embedder
        embedder.embed = timer.wrap("embedder.embed", embedder.embed)  # type: ignore[method-assign]
    remembered = neighbours_module.FactNeighbours._remembered

    def counted(*args: Any, **kwargs: Any) -> Any:
        found = remembered(*args, **kwargs)
        timer.spent["(count) neighbour queries"] += 1
        timer.spent["(count) ... answered from the memo"] += found is not None
        return found

    neighbours_module.FactNeighbours._remembered = counted  # type: ignore[method-assign]
    cache_module.evolve = timer.wrap("evolve (grow the snapshot)", cache_module.evolve)  # type: ignore[assignment]
    link_module.exact_above = timer.wrap("neighbours: exact pass", link_module.exact_above)  # type: ignore[assignment]
    fn = neighbours_module.FactNeighbours.above
    neighbours_module.FactNeighbours.above = timer.wrap("neighbours: bound index", fn)  # type: ignore[method-assign]
    pipeline = sys.modules["anchormem.ingest.pipeline"]
    pipeline.build_clusters = timer.wrap("build_clusters", pipeline.build_clusters)  # type: ignore[attr-defined]


class Adder:
    """One memory's adds of one message, each followed by a search (as the agent loop does)."""

    def __init__(self, location: str, n: int, timer: Timer, work: Workload) -> None:
        self.n, self.timer, self.work = n, timer, work
        self.tail = tail_of(work, n)
        last = self.tail.last_speaker
        self.speaker = self.tail.speakers[1] if last == self.tail.speakers[0] else self.tail.speakers[0]
        self.texts = iter(work.messages)
        self.mem = Memory(settings_for(location))
        self.totals: list[float] = []
        self.parts: list[Spent] = []
        self.mem.search(work.question(), user_id=USER)

    def add(self, i: int, keep: bool, prof: cProfile.Profile | None) -> None:
        tail = self.tail
        message = tail.message(self.speaker, next(self.texts), i + 1)
        self.speaker = tail.speakers[0] if self.speaker == tail.speakers[1] else tail.speakers[1]
        self.timer.take()
        if prof is not None and keep:
            prof.enable()
        start = time.perf_counter()
        self.mem.add([message], user_id=USER)
        seconds = time.perf_counter() - start
        if prof is not None:
            prof.disable()
        if keep:
            self.totals.append(seconds)
            self.parts.append(self.timer.take())
        self.mem.search(self.work.question(), user_id=USER)


def profile(locations: dict[int, str], adds: int, warm: int, use_cprofile: bool) -> dict[int, Adder]:
    """Every size's memory open at once, one add of each in turn (the load weighs on every size alike)."""
    work = workload()
    timer = Timer()
    adders = {n: Adder(location, n, timer, work) for n, location in sorted(locations.items())}
    instrument([a.mem for a in adders.values()], timer)
    profs = {n: cProfile.Profile() if use_cprofile else None for n in adders}
    try:
        for i in range(adds + warm):
            for n, adder in adders.items() if i % 2 == 0 else list(adders.items())[::-1]:
                adder.add(i, i >= warm, profs[n])
    finally:
        for adder in adders.values():
            adder.mem.close()
    for n, prof in profs.items():
        if prof is not None:
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(45)
            print(f"\n### cProfile, {n:,} turns\n\n" + "\n".join(x for x in out.getvalue().splitlines() if x.strip()))
    return adders


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--sizes", default="1000,50000")
    ap.add_argument("--adds", type=int, default=12)
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("--store", default="sqlite", choices=["sqlite", "postgres"])
    ap.add_argument("--cache-dir", default="/tmp/agent_loop_cache", type=Path)
    ap.add_argument("--cprofile", action="store_true")
    args = ap.parse_args()
    print(f"# bench/profile_add.py: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(f"load average {os.getloadavg()[0]:.1f} at {time.strftime('%H:%M:%S')}")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    pg = PgServer(args.cache_dir / "pg", None) if args.store == "postgres" else None
    results: dict[int, tuple[list[float], list[Spent]]] = {}
    try:
        with tempfile.TemporaryDirectory(dir=args.cache_dir, prefix="profile-") as tmp:
            locations = {}
            for n in sizes:
                if pg is None:
                    path = Path(tmp) / f"profile-{n}.db"
                    copy_sqlite(cached_path(args.cache_dir, n), path)
                    locations[n] = str(path)
                else:
                    locations[n] = pg.copy(pg_built(n), f"profile_add_{n}")
            adders = profile(locations, args.adds, args.warm, args.cprofile)
            results = {n: (a.totals, a.parts) for n, a in adders.items()}
            if pg is not None:
                for n in sizes:
                    pg.drop(f"profile_add_{n}")
    finally:
        if pg is not None:
            pg.stop()
    names = sorted({k for _, parts in results.values() for p in parts for k in p})
    print(f"\n## One add of one message ({args.store}): medians over {args.adds} adds (ms)\n")
    print("| part | " + " | ".join(f"{n:,} turns" for n in sizes) + " | ratio |")
    print("|---|" + "---|" * (len(sizes) + 1))

    def row(label: str, values: list[float]) -> None:
        ratio = f"{values[-1] / values[0]:.2f}×" if values[0] > 0 else "–"
        scale = 1 if label.startswith("(count)") else 1000
        print(f"| {label} | " + " | ".join(f"{scale * v:.1f}" for v in values) + f" | {ratio} |")

    row("**whole add**", [float(np.median(results[n][0])) for n in sizes])
    for name in sorted(names, key=lambda k: -float(np.median([p.get(k, 0.0) for p in results[sizes[-1]][1]]))):
        row(name, [float(np.median([p.get(name, 0.0) for p in results[n][1]])) for n in sizes])
    print(f"\nload average {os.getloadavg()[0]:.1f} at {time.strftime('%H:%M:%S')}")


if __name__ == "__main__":
    main()
