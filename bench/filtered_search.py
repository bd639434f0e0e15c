"""Search latency with and without filters and sub-scopes, on a synthetic memory of a few thousand turns.

    PYTHONPATH=src .venv/bin/python bench/filtered_search.py [--turns 3000] [--queries 40] [--embed hash]

The memory: one user with its own scope and two agent scopes (one with two runs), sessions of 30
turns, each turn with a ``topic`` in its metadata and a time a few hours after the previous one.
Each case runs every query once. "kept": the filtered snapshot is kept from the previous search with
the same filters; "new": it is made anew for every search (the first search with those filters);
"turns not loaded": the stored turns are read again too (the first filtered search after a write). Prints a markdown
table of median and p90 milliseconds per search (query embedding included).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anchormem.config import Settings
from anchormem.memory import Memory
from anchormem.model import Scope
from anchormem.search import filters as filters_module

TOPICS = ["work", "sport", "family", "travel", "food", "health"]
WORDS = [
    "budget",
    "meeting",
    "climbing",
    "trip",
    "sister",
    "birthday",
    "flight",
    "Lisbon",
    "pasta",
    "recipe",
    "doctor",
    "appointment",
    "running",
    "marathon",
    "garden",
    "tomatoes",
    "guitar",
    "lesson",
    "painting",
    "museum",
    "concert",
    "tickets",
    "camping",
    "lake",
    "dog",
    "walk",
]
START = 1_704_067_200  # 2024-01-01T00:00:00Z


def build(memory: Memory, turns: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    scopes: list[dict[str, Any]] = [
        {"user_id": "ana"},
        {"user_id": "ana", "agent_id": "coach"},
        {"user_id": "ana", "agent_id": "coach", "run_id": "r1"},
        {"user_id": "ana", "agent_id": "coach", "run_id": "r2"},
        {"user_id": "ana", "agent_id": "planner"},
    ]
    per_scope = turns // len(scopes)
    t = START
    for n, scope in enumerate(scopes):
        messages = []
        for i in range(per_scope):
            t += rng.randint(1800, 4 * 3600)
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16)))
            messages.append(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": f"Message {n}-{i}: {words}.",
                    "session": str(i // 30 + 1),
                    "created_at": t,
                    "metadata": {"topic": rng.choice(TOPICS)},
                }
            )
        memory.add(messages, **scope)


def timed(search: Callable[[int], Any], queries: int) -> tuple[float, float]:
    samples = []
    for i in range(queries):
        started = time.perf_counter()
        search(i)
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.9 * (len(samples) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--embed", default="hash", help="embedding backend (default hash: retrieval cost only)")
    args = parser.parse_args(argv)
    rng = random.Random(11)
    texts = [" ".join(rng.choice(WORDS) for _ in range(5)) + "?" for _ in range(args.queries)]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(env={}, store=str(Path(tmp) / "m.db"), embed__backend=args.embed)
        with Memory(settings) as memory:
            started = time.perf_counter()
            build(memory, args.turns)
            print(f"built {args.turns} turns in {time.perf_counter() - started:.1f} s ({args.embed} embedder)\n")
            memory.search("warm up", user_id="ana")
            memory.search("warm up", user_id="ana", include_subscopes=False)
            day = 86_400
            merged = memory._snapshots.covering(Scope("ana"))
            assert merged is not None

            def cold(search: Callable[[int], Any], reload_turns: bool = False) -> Callable[[int], Any]:
                """``search`` with no restriction kept (and, with ``reload_turns``, the turns not loaded yet)."""

                def run(i: int) -> Any:
                    merged.restricted.clear()
                    if reload_turns:
                        merged.__dict__.pop("turns", None)
                        filters_module._TABLES.pop(merged, None)
                    return search(i)

                return run

            def topic(i: int) -> Any:
                return memory.search(texts[i], user_id="ana", filters={"topic": "work"})

            def session(i: int) -> Any:
                return memory.search(texts[i], user_id="ana", session="3")

            def window(i: int) -> Any:
                return memory.search(texts[i], user_id="ana", since=START + 30 * day, until=START + 90 * day)

            def most(i: int) -> Any:
                return memory.search(texts[i], user_id="ana", since=START + day)

            def both(i: int) -> Any:
                return memory.search(texts[i], user_id="ana", filters={"topic": "work"}, until=START + 200 * day)

            cases: list[tuple[str, Callable[[int], Any]]] = [
                (
                    "user's own scope only, no filter",
                    lambda i: memory.search(texts[i], user_id="ana", include_subscopes=False),
                ),
                ("user + 4 sub-scopes merged, no filter", lambda i: memory.search(texts[i], user_id="ana")),
                ("metadata topic=work (1 in 6), kept", topic),
                ("metadata topic=work, new", cold(topic)),
                ("metadata topic=work, new, turns not loaded", cold(topic, reload_turns=True)),
                ("session 3, kept", session),
                ("session 3, new", cold(session)),
                ("since/until 60 days, new", cold(window)),
                ("since/until 60 days, new, turns not loaded", cold(window, reload_turns=True)),
                ("since (almost all pass), new", cold(most)),
                ("metadata + until, new", cold(both)),
            ]
            print("| search | median ms | p90 ms |\n|---|---:|---:|")
            for name, search in cases:
                median, p90 = timed(search, args.queries)
                print(f"| {name} | {median:.1f} | {p90:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
