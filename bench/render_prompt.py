"""Time to render a search result as one prompt block (``as_prompt``, REST ``format: "prompt"``, MCP
search) at 50, 100 and 200 contexts.

    PYTHONPATH=src .venv/bin/python bench/render_prompt.py [--repeat 5]

The result is built by hand, shaped like a search of a long chat: overlapping windows of 6 messages
(stride 3) spread over sessions, generated turn ids (shown as ``#n``), ~90 characters a message, and
10 events. Each size is rendered with room for everything (``max_chars`` 1,000,000) and with a budget
that keeps about half of it (the greedy fit: the best contexts that fit). Prints a markdown table of
the median seconds per render and the characters rendered.
"""

from __future__ import annotations

import argparse
import statistics
import time

from anchormem.model import Context, ContextHit, Event, EventHit, SearchResult
from anchormem.render.prompt_block import render_block

WINDOW, STRIDE, PER_SESSION = 6, 3, 40


def result(n: int) -> SearchResult:
    hits = []
    for i in range(n):
        session, position = divmod(i, PER_SESSION)
        first = position * STRIDE
        ids = tuple(f"t-{session:04x}{first + j:012x}" for j in range(WINDOW))
        lines = [f"DATE: 1:56 pm on {1 + session % 28} May, 2023"]
        for j, _ in enumerate(ids):
            speaker = "user" if (first + j) % 2 == 0 else "assistant"
            text = f"message {first + j} of session {session}: the trip to Lisbon, the dog Pico and the pottery class"
            lines.append(f'{speaker} said, "{text}"')
        context = Context(f"c-{i}", f"s{session}", position, ids, lines[0][6:], "\n".join(lines))
        hits.append(ContextHit(context, 1.0 - i / (n + 1), rank=i + 1))
    order = sorted(range(n), key=lambda i: (hits[i].context.session, hits[i].context.position))
    events = tuple(
        EventHit(Event(f"e-{i}", f"Ana planned event {i} with Ben in May 2023.", ()), 0.5) for i in range(10)
    )
    return SearchResult("what did we plan?", tuple(hits), events, tuple(order))


def timed(res: SearchResult, max_chars: int, repeat: int) -> tuple[float, int]:
    seconds, size = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        size = len(render_block(res, max_chars=max_chars).text)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| contexts | all fit: s | chars | half fit: s | chars |")
    print("|---:|---:|---:|---:|---:|")
    for n in (50, 100, 200):
        res = result(n)
        full, size = timed(res, 1_000_000, args.repeat)
        half, kept = timed(res, size // 2, args.repeat)
        print(f"| {n} | {full:.3f} | {size:,} | {half:.3f} | {kept:,} |")


if __name__ == "__main__":
    main()
