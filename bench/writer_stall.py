"""Load benchmark: does one user's writer slow other users' searches?

    PYTHONPATH=src .venv/bin/python bench/writer_stall.py [--readers 4] [--duration 20]
        [--big 1000] [--writers 60] [--timeout 60]

Starts ``anchormem serve`` on 127.0.0.1 (a free port, hash embedder, no LLM) in a subprocess, gives
``--readers`` users a 40-message conversation each, then runs two phases of ``--duration`` seconds:

1. *quiet*: each reader user searches its own memory in a loop (one client per user);
2. *hammered*: the same searches while one writer hammers one other user: a ``background: false``
   add of ``--big`` turns, and ``--writers`` clients each sending one-message adds in a loop.

Prints the readers' search p50/p95/max per phase, the ratio of the p95s (the acceptance: at most 2),
and what the writer's requests got (status codes). Every request has a ``--timeout``; one that times
out counts with the timeout as its latency. Loopback only; bounded in time; the server is stopped
at the end. Run it with ``PYTHONPATH`` at another tree's ``src`` to measure that code (the server
subprocess inherits it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
from served import free_port, stop, wait_healthy  # bench/ is on the path when this file runs as a script

from anchormem.server.keys import create_key

TOPICS = ["the dog Pico", "a trip to Lisbon", "the pottery class", "a cello recital", "the new job", "a marathon"]


def conversation(user: str, n: int, session: str = "s1") -> list[dict[str, str]]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": f"{user} message {i}: talking about {TOPICS[i % len(TOPICS)]} and what happened next",
            "session": session,
            "id": f"{user}-{session}-{i}",
            "created_at": f"2024-05-{1 + i % 28:02d}T10:00:00Z",
        }
        for i in range(n)
    ]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def search_loop(client: httpx.AsyncClient, user: str, until: float, timeout: float, out: list[float]) -> None:
    i = 0
    while time.monotonic() < until:
        start = time.perf_counter()
        try:
            r = await client.post(f"/v1/users/{user}/search", json={"query": TOPICS[i % len(TOPICS)]}, timeout=timeout)
            r.raise_for_status()
            out.append(time.perf_counter() - start)
        except httpx.TimeoutException:
            out.append(timeout)
        i += 1


async def writer_loop(client: httpx.AsyncClient, w: int, until: float, timeout: float, codes: Counter[str]) -> None:
    i = 0
    while time.monotonic() < until:
        body = {"messages": [{"role": "user", "content": f"writer {w} says thing {i}", "session": f"w{w}-{i}"}]}
        try:
            r = await client.post("/v1/users/writer/memories", json=body, timeout=timeout)
            codes[f"small add {r.status_code}"] += 1
            if r.status_code == 429:
                await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
        except httpx.TimeoutException:
            codes["small add timeout"] += 1
        i += 1


async def big_add(client: httpx.AsyncClient, turns: int, timeout: float, codes: Counter[str]) -> None:
    body = {"messages": conversation("writer", turns, "big"), "background": False}
    try:
        r = await client.post("/v1/users/writer/memories", json=body, timeout=timeout)
        codes[f"big add {r.status_code}"] += 1
    except httpx.TimeoutException:
        codes["big add timeout"] += 1


async def phase(base: str, key: str, readers: list[str], args: argparse.Namespace, hammer: bool) -> dict[str, object]:
    limits = httpx.Limits(max_connections=args.writers + len(readers) + 8)
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, limits=limits) as rclient,
        httpx.AsyncClient(base_url=base, headers=headers, limits=limits) as wclient,
    ):
        latencies: list[float] = []
        codes: Counter[str] = Counter()
        until = time.monotonic() + args.duration
        tasks = []
        if hammer and args.big:
            tasks.append(asyncio.create_task(big_add(wclient, args.big, args.timeout, codes)))
            await asyncio.sleep(0.5)  # the big add first, as in the report
        if hammer:
            tasks += [
                asyncio.create_task(writer_loop(wclient, w, until, args.timeout, codes)) for w in range(args.writers)
            ]
        searches = [asyncio.create_task(search_loop(rclient, u, until, args.timeout, latencies)) for u in readers]
        await asyncio.gather(*searches)
        for task in tasks:  # the writer's requests still running are not waited for
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return {"latencies": latencies, "codes": codes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--readers", type=int, default=4, help="users searching their own memory (one client each)")
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per phase (at most 120)")
    ap.add_argument("--big", type=int, default=1000, help="turns of the writer's background: false add")
    ap.add_argument("--writers", type=int, default=60, help="clients sending one-message adds to the writer")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a request may take")
    args = ap.parse_args()
    args.duration = min(args.duration, 120.0)

    readers = [f"reader-{i}" for i in range(args.readers)]
    with tempfile.TemporaryDirectory(prefix="anchormem-stall-") as tmp:
        keys = Path(tmp) / "keys.json"
        key, _ = create_key(keys, [*readers, "writer"], note="writer stall benchmark")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        cmd = [sys.executable, "-m", "anchormem", "serve", "--keys", str(keys), "--store", str(Path(tmp) / "s.db")]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--embed-backend", "hash", "--log-level", "warning"]
        with open(Path(tmp) / "server.log", "w") as log:
            server = subprocess.Popen(cmd, env={**os.environ, "HOME": tmp}, stdout=subprocess.DEVNULL, stderr=log)
        try:
            if not wait_healthy(base, server, Path(tmp) / "server.log", 120):
                return 1
            auth = {"Authorization": f"Bearer {key}"}
            for user in readers:
                body = {"messages": conversation(user, 40), "background": False}
                httpx.post(f"{base}/v1/users/{user}/memories", json=body, headers=auth, timeout=120).raise_for_status()
            quiet = asyncio.run(phase(base, key, readers, args, hammer=False))
            hammered = asyncio.run(phase(base, key, readers, args, hammer=True))
        finally:
            stop(server)

    print(
        f"## One writer against {args.readers} readers: {args.big}-turn foreground add + {args.writers} "
        f"one-message adders, {args.duration:.0f} s per phase, {os.cpu_count()} cores\n"
    )
    print("| phase | searches | p50 (s) | p95 (s) | max (s) |")
    print("|---|---:|---:|---:|---:|")
    p95 = {}
    for name, result in (("quiet", quiet), ("writer hammering", hammered)):
        lat = result["latencies"]
        assert isinstance(lat, list)
        p95[name] = pct(lat, 0.95)
        print(f"| {name} | {len(lat)} | {statistics.median(lat):.3f} | {p95[name]:.3f} | {max(lat):.3f} |")
    ratio = p95["writer hammering"] / p95["quiet"]
    print(f"\nsearch p95 ratio (hammered / quiet): {ratio:.2f} ({'within' if ratio <= 2 else 'OVER'} the 2x bound)")
    print("writer's requests:", ", ".join(f"{k}: {v}" for k, v in sorted(hammered["codes"].items())))  # type: ignore[union-attr]
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
