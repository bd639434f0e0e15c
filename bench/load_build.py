"""Build the load benchmark's big database: N users x 1,000 turns on PostgreSQL, kept between runs.

    nice -n 19 env PYTHONPATH=src .venv/bin/python bench/load_build.py --pgdata /work/pgdata31 \\
        [--users 1000] [--pool 25] [--turns 1000] [--database load1k] [--check 5]

Two steps, both resumable (a run stopped halfway continues where it stopped):

1. **Pool**: ``--pool`` distinct users (``user-000`` …) built for real through ``Memory.add`` on the offline path
   with the MiniLM embedder (``--embed-backend minilm``): each takes ``--turns`` turns of real chat, the sessions of
   LoCoMo and REALTALK (``/work/shared/data``) in an order of its own (shuffled by its number), relabelled as
   its sessions 1, 2, … on consecutive days from a date of its own. Each distinct text is embedded once
   (``TextCachedEmbedder``): a text repeated between pool users gets the same vector as it would anyway.
2. **Copies**: every other user ``user-K`` is pool user ``K mod pool``'s stored rows copied under the new user id
   inside the database (``load_copy.copy_user``: every table with a scope, in one transaction per user).

Then ``--check`` copied users are compared with their originals through the product: the export (every record,
the user id aside), the stats and ten searches (contexts, scores, events) must be equal. Then one process times the
first search of ``--time-searches`` users (each loaded from the database, a server's cache miss) and the second
(held in memory), and the first and second add of two messages on as many other users. Prints the database's
size, its tables' sizes, turns per GiB and the time of each step. The data folder (``--pgdata``) is not in git.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from agent_loop_build import TextCachedEmbedder, relabelled  # bench/ is on the path when this file runs as a script
from load_copy import copy_user, scope_tables, user_turns
from load_db import database_url, primary

from anchormem import Memory
from anchormem.config import Settings
from anchormem.ingest.sources import Conversation, load_conversations
from anchormem.model import Turn
from anchormem.text.dates import locomo_date

DATA = Path("/work/shared/data")
SOURCES = ("locomo10.json", "realtalk_dev.json")
QUESTIONS = (
    "what did they say about the dog?",
    "when did she go to the beach?",
    "which book was he reading?",
    "how did the job interview go?",
    "what instrument does she play?",
    "where did they travel last summer?",
    "what did they cook for the family dinner?",
    "what does he think about painting?",
    "who came to the birthday party?",
    "what was the plan for the weekend?",
)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def user_name(i: int) -> str:
    return f"user-{i:03d}"  # bench/load.py's user names


def corpus() -> list[list[Turn]]:
    """Every session of the source conversations, as its turns."""
    out: list[list[Turn]] = []
    for name in SOURCES:
        for conv in load_conversations(DATA / name):
            by: dict[str, list[Turn]] = {}
            for t in conv.turns:
                by.setdefault(t.session, []).append(t)
            out.extend(by.values())
    return out


def pool_sessions(sessions: Sequence[list[Turn]], p: int, turns: int) -> Iterator[list[Turn]]:
    """Pool user ``p``'s memory: the sessions shuffled by ``p`` (passes repeat them if ``turns`` asks for more than
    the corpus), relabelled 1, 2, … a day apart from a start of ``p``'s own, the last cut at ``turns`` turns."""
    rng = random.Random(p)
    start = datetime(2019, 1, 1, 9, 0) + timedelta(days=37 * p, minutes=13 * p)
    done = k = 0
    while done < turns:
        order = list(sessions)
        rng.shuffle(order)
        for session in order:
            if done >= turns:
                return
            take = session[: turns - done]
            date = locomo_date(start + timedelta(days=k, minutes=11 * (k % 50)))
            yield relabelled(take, [f"s{k + 1}:{i + 1}" for i in range(len(take))], str(k + 1), date)
            done += len(take)
            k += 1


def build_pool(url: str, pool: int, turns: int, batch: int) -> None:
    """Add each pool user's sessions (a batch of about ``batch`` turns per add) unless it holds them already;
    an add re-sent after a stop stores only what is missing."""
    sessions = corpus()
    settings = Settings.load(env={}, store=url)
    with Memory(settings) as plain:
        embedder = TextCachedEmbedder(plain.embedder)
    with Memory(settings, embedder=embedder) as mem:
        for p in range(pool):
            user = user_name(p)
            have = user_turns(url, user)
            if have >= turns:
                continue
            t0 = time.perf_counter()
            pending: list[Turn] = []
            parts = list(pool_sessions(sessions, p, turns))
            for i, session in enumerate(parts):
                pending += session
                if len(pending) >= batch or i == len(parts) - 1:
                    mem.add(Conversation(user, tuple(pending)), user_id=user)
                    pending = []
            stats = mem.stats(user_id=user)
            log(
                f"pool {user}: {stats.turns} turns, {stats.contexts} contexts, {stats.facts} facts, "
                f"{stats.events} events in {time.perf_counter() - t0:.0f} s (texts embedded so far "
                f"{embedder.embedded:,})"
            )


def copy_users(url: str, users: int, pool: int, turns: int) -> None:
    import psycopg

    tables = scope_tables(url)
    log(f"copies: tables with a scope: {', '.join(tables)}")
    t0 = time.perf_counter()
    made = 0
    with psycopg.connect(url, autocommit=True) as conn:
        for k in range(pool, users):
            source, target = user_name(k % pool), user_name(k)
            if copy_user(conn, tables, source, target, turns):
                made += 1
                if made % 25 == 0:
                    rate = made / (time.perf_counter() - t0)
                    log(f"copies: {target} done, {made} made in {time.perf_counter() - t0:.0f} s ({rate:.2f}/s)")
    log(f"copies: {made} users made in {time.perf_counter() - t0:.0f} s")


def _search_key(mem: Memory, user: str, query: str) -> Any:
    found = mem.search(query, user_id=user, k=10)
    return (
        [
            (h.context.id, round(h.score, 6), h.context.text, tuple(a.fact.id for a in h.anchors))
            for h in found.contexts
        ],
        [(e.event.id, round(e.score, 6)) for e in found.events],
    )


def _export(mem: Memory, user: str) -> list[str]:
    import json

    return [json.dumps(r, sort_keys=True).replace(json.dumps(user), '"USER"') for r in mem.export(user_id=user)]


def check_copies(url: str, users: int, pool: int, turns: int, count: int) -> None:
    """Compare ``count`` copied users (spread over the range) with their pool originals through the product; a pair
    that a load run added to since (either holds more than ``turns`` turns) is passed over, and said so."""
    if users <= pool or count <= 0:
        return
    picks = sorted({pool + (users - pool - 1) * i // max(1, count - 1) for i in range(count)})
    settings = Settings.load(env={}, store=url)
    with Memory(settings) as mem:
        for k in picks:
            source, target = user_name(k % pool), user_name(k)
            if max(user_turns(url, source), user_turns(url, target)) > turns:
                log(f"check {target} vs {source}: passed over (a load run added to them since the build)")
                continue
            same_stats = mem.stats(user_id=source) == mem.stats(user_id=target)
            same_export = _export(mem, source) == _export(mem, target)
            same_search = all(_search_key(mem, source, q) == _search_key(mem, target, q) for q in QUESTIONS)
            hits = len(_search_key(mem, target, QUESTIONS[0])[0])
            verdict = "equal" if same_stats and same_export and same_search and hits else "DIFFERENT"
            log(
                f"check {target} vs {source}: stats {same_stats}, export {same_export}, "
                f"{len(QUESTIONS)} searches {same_search} ({hits} contexts): {verdict}"
            )
            if verdict != "equal":
                raise SystemExit(f"{target} does not read as {source} does")


def _timed(call: Any) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def time_first_ops(url: str, users: int, count: int) -> None:
    """In one process, on ``count`` users spread over the range: the first search (the user loaded from the
    database, what a server does on a cache miss) and the second (held in memory); then on as many other users
    the first and the second add of two messages (a session of their own). Medians and maxima."""
    import secrets
    import statistics

    if count <= 0:
        return
    tag = secrets.token_hex(3)
    times: dict[str, list[float]] = {"first search": [], "second search": [], "first add": [], "second add": []}
    with Memory(Settings.load(env={}, store=url)) as mem:
        mem.search(QUESTIONS[0], user_id=user_name(users - 1), k=10)  # the embedder's and the pool's first use
        for n in range(count):
            user, other = user_name(n * users // count), user_name(n * users // count + users // count // 2)
            for which in ("first search", "second search"):
                query = QUESTIONS[n % 10]
                times[which].append(_timed(lambda q=query, u=user: mem.search(q, user_id=u, k=10)))
            for i, which in enumerate(("first add", "second add")):
                said = [
                    {"speaker": "user", "session": f"timing-{tag}-{i}", "text": f"{QUESTIONS[(n + i) % 10]} {tag}"},
                    {"speaker": "assistant", "session": f"timing-{tag}-{i}", "text": f"Noted, {n} and {i}."},
                ]
                times[which].append(_timed(lambda m=said, u=other: mem.add(m, user_id=u)))
    log(
        f"one process, {count} users each (load average {os.getloadavg()[0]:.1f}): "
        + "; ".join(
            f"{k} {statistics.median(v) * 1000:.0f} ms median, {max(v) * 1000:.0f} max" for k, v in times.items()
        )
    )


def report_size(url: str, users: int) -> None:
    import psycopg

    with psycopg.connect(url) as conn:
        total = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        rows = conn.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 2 DESC"
        ).fetchall()
        turns = conn.execute("SELECT count(*) FROM turns").fetchone()
    assert total is not None and turns is not None
    gib = total[0] / 2**30
    log(f"database: {gib:.2f} GiB for {turns[0]:,} turns ({users} users): {turns[0] / gib:,.0f} turns per GiB")
    for name, size in rows[:8]:
        log(f"  {name}: {size / 2**30:.2f} GiB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgdata", type=Path, required=True, help="the server's folder (kept between runs)")
    ap.add_argument("--database", default="load1k")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--pool", type=int, default=25, help="users built for real; the others are their copies")
    ap.add_argument("--turns", type=int, default=1000, help="turns per user")
    ap.add_argument("--batch", type=int, default=200, help="turns per add while building the pool")
    ap.add_argument("--check", type=int, default=5, help="copied users compared with their originals")
    ap.add_argument(
        "--time-searches", type=int, default=20, help="users whose first and second search are timed (and as many adds)"
    )
    args = ap.parse_args(argv)
    if not 0 < args.pool <= args.users or args.users > 1000:
        ap.error("need 0 < --pool <= --users <= 1000")
    with primary(args.pgdata) as server:
        url = database_url(server, args.database)
        t0 = time.perf_counter()
        build_pool(url, args.pool, args.turns, args.batch)
        t1 = time.perf_counter()
        copy_users(url, args.users, args.pool, args.turns)
        t2 = time.perf_counter()
        check_copies(url, args.users, args.pool, args.turns, args.check)
        time_first_ops(url, args.users, args.time_searches)
        report_size(url, args.users)
        log(f"times: pool {t1 - t0:.0f} s, copies {t2 - t1:.0f} s, check {time.perf_counter() - t2:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
