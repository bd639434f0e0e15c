"""How the agent loop prints what it measured (bench/agent_loop.py): medians and p90s, one table per part."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from agent_loop_build import (  # noqa: F401
    DATA,
    FIRST_DAY,
    HOLDOUT,
    LOCOMO,
    STREAM,
    USER,
    CountingStore,
    PgServer,
    Tail,
    TextCachedEmbedder,
    Workload,
    build_pg,
    build_sqlite,
    cached_path,
    copy_sqlite,
    locomo_date,
    log,
    memory_turns,
    pg_built,
    session_stream,
    sessions_of,
    settings_for,
    tail_of,
    workload,
)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def med_p90(samples: Sequence[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1000
    return float(np.median(a)), float(np.percentile(a, 90))


def fmt(samples: Sequence[float]) -> str:
    m, p = med_p90(samples)
    return f"{m:,.1f} / {p:,.1f}"


@dataclass
class LoopResult:
    store: str
    size: int
    counts: str = ""
    load: tuple[float, float] = (0.0, 0.0)  # the machine's 1-minute load average when the loop began and ended
    first_search: float = 0.0
    add: list[float] = field(default_factory=list)
    after_add: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    extras: dict[str, list[float]] = field(default_factory=dict)


def print_other(rows: dict[str, tuple[int, dict[str, list[float]]]]) -> None:
    print("\n## Another process adds, this one searches (ms, median / p90)\n")
    keys = list(next(iter(rows.values()))[1])
    print("| store | memory | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for store, (n, got) in rows.items():
        print(f"| {store} | {n:,} turns | " + " | ".join(fmt(got[k]) for k in keys) + " |")


def print_loop(results: Sequence[LoopResult], rounds: int) -> None:
    print(f"\n## The agent loop: {rounds} rounds of add one message + search (ms, median / p90)\n")
    print("| store | memory | add one message | search after add | warm search | after add ÷ warm (medians) |")
    print("|---|---|---|---|---|---|")
    for r in results:
        ratio = np.median(r.after_add) / np.median(r.warm)
        print(f"| {r.store} | {r.size:,} turns | {fmt(r.add)} | {fmt(r.after_add)} | {fmt(r.warm)} | {ratio:.1f}× |")
    print()
    for r in results:
        print(
            f"- {r.store} {r.size:,} turns: {r.counts}; first search after opening {r.first_search * 1000:,.0f} ms; "
            f"load average {r.load[0]:.1f} → {r.load[1]:.1f}"
        )
    by_store: dict[str, list[LoopResult]] = {}
    for r in results:
        by_store.setdefault(r.store, []).append(r)
    print()
    for store, rows in by_store.items():
        if len(rows) < 2:
            continue
        lo, hi = min(rows, key=lambda r: r.size), max(rows, key=lambda r: r.size)
        print(
            f"- {store}: add at {hi.size:,} ÷ add at {lo.size:,}: "
            f"{np.median(hi.add) / np.median(lo.add):.1f}×; search after add at {hi.size:,} ÷ at {lo.size:,}: "
            f"{np.median(hi.after_add) / np.median(lo.after_add):.1f}×; warm search: "
            f"{np.median(hi.warm) / np.median(lo.warm):.1f}×"
        )
    print("\n## Other calls (ms, median / p90; stats and get: 3 calls each)\n")
    kinds = list(dict.fromkeys(k for r in results for k in r.extras))
    print("| store | memory | " + " | ".join(kinds) + " |")
    print("|---|---|" + "---|" * len(kinds))
    for r in results:
        cells = [fmt(r.extras[k]) if r.extras.get(k) else "–" for k in kinds]
        print(f"| {r.store} | {r.size:,} turns | " + " | ".join(cells) + " |")
    sys.stdout.flush()


def print_cold(rows: dict[str, tuple[int, list[dict[str, float]]]]) -> None:
    print("\n## Cold start: a new process opens the memory and runs its first search (seconds)\n")
    keys = list(next(iter(rows.values()))[1][0])
    print("| store | memory | process | " + " | ".join(keys) + " | runs |")
    print("|---|---|---|" + "---|" * (len(keys) + 1))
    for store, (n, runs) in rows.items():
        for label, part in (("first on a fresh copy", runs[:1]), ("later (median)", runs[1:])):
            if part:
                cells = [f"{np.median([r[k] for r in part]):.2f}" for k in keys]
                print(f"| {store} | {n:,} turns | {label} | " + " | ".join(cells) + f" | {len(part)} |")


def print_calls(store_name: str, calls: dict[str, Counter[str]], turns: int = 200) -> None:
    print(f"\n## Store calls on a {turns}-turn memory ({store_name})\n")
    for what, counts in calls.items():
        listed = ", ".join(f"`{k}` ×{v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"- {what}: {sum(counts.values())} calls: {listed or 'none'}")
    sys.stdout.flush()
