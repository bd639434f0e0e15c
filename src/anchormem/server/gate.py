"""Per-memory gates: a request that must wait for a memory waits on the event loop, never in a worker.

The server's worker threads are shared by every user. A write holds its memory's writer lock
(:class:`~anchormem.lifecycle.locks.WriterLocks`) for as long as it runs, so sixty adds to one user
would hold sixty workers while they wait for each other, and every other user's search would wait
for a free worker. Here each memory (a user, or an agent's own memory: the writer lock's key) has a
gate: at most one write and ``readers`` reads of it run in workers at a time; the rest wait, first
come first served, as coroutines that hold no thread. At most ``queue`` requests wait per memory; one
more is refused with 429 ``busy`` and a ``Retry-After`` header, so one client cannot queue without end.
Gates of memories nobody is using are dropped.

Writes are paced while other memories have requests: after a write, its memory's next write waits
``PACE`` times as long as the write took (at most ``MAX_PAUSE``), and a long write (an add of many
turns) pauses its worker ``PACE`` times as long as it has worked, at each progress step
(:meth:`WriteTurn.pacer`); work is counted in the worker's CPU time, not in wall time, which waiting
for other threads would inflate. A memory written without pause thus takes at most about a quarter of the
server's time while others are served, and all of it when nobody else is waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from anchormem.model import Scope
from anchormem.server.errors import ApiError

T = TypeVar("T")
DEFAULT_READERS = 4
DEFAULT_QUEUE = 64
RETRY_AFTER_SECONDS = 2
MAX_PAUSE = 1.0  # seconds: the longest a paced write waits at once
PACE = 3.0  # a paced write waits this many times as long as it worked: a quarter of the time at most
MIN_INTERVAL = 0.15  # seconds: a paced memory's writes start at most this often
RECENT = 1.0  # seconds: a memory with a request this recent still counts as being served


def memory_key(user_id: str | None, agent_id: str | None = None) -> str:
    """The memory a request touches, as the writer locks name it: the user, else the agent's own memory."""
    return user_id if user_id else f"\0agent:{agent_id or ''}"


def key_of(scope: Scope | Mapping[str, Any]) -> str:
    if isinstance(scope, Scope):
        return memory_key(scope.user_id, scope.agent_id)
    return memory_key(scope.get("user_id"), scope.get("agent_id"))


class WriteTurn:
    """One write's turn: what its worker did (CPU seconds, ``time.thread_time``) and how much of it a
    pause inside the work already paid for."""

    def __init__(self, others_busy: Callable[[], bool]) -> None:
        self.others_busy = others_busy
        self.worked = 0.0
        self.paid = 0.0
        self._mark = 0.0

    def timed(self, fn: Callable[[], T]) -> Callable[[], T]:
        """``fn`` counting the CPU time of the worker that runs it."""

        def run() -> T:
            self._mark = start = time.monotonic()
            try:
                return fn()
            finally:
                self.worked += time.monotonic() - start

        return run

    def pacer(self, then: Callable[[str, int, int], None] | None = None) -> Callable[[str, int, int], None]:
        """A progress callback for a long write, run in its worker (inside :meth:`timed`): while other
        memories are busy, it sleeps (freeing the interpreter for them) ``PACE`` times as long as the
        worker has worked since its last pause, at most ``MAX_PAUSE``; then it calls ``then``."""

        def progress(stage: str, done: int, total: int) -> None:
            now = time.monotonic()
            worked = now - self._mark
            if worked >= 0.02 and self.others_busy():
                time.sleep(min(PACE * worked, MAX_PAUSE))
                self.paid += worked
                self._mark = now
            if then is not None:
                then(stage, done, total)

        return progress


@dataclass
class _Gate:
    writes: asyncio.Semaphore
    reads: asyncio.Semaphore
    waiting: int = 0
    users: int = 0  # requests waiting or running: the gate is dropped at 0


class Gates:
    """The gates of the memories in use; ``readers`` concurrent reads and one write per memory, at
    most ``queue`` waiting requests per memory (both at least 1)."""

    def __init__(self, readers: int = DEFAULT_READERS, queue: int = DEFAULT_QUEUE) -> None:
        if readers < 1 or queue < 1:
            raise ValueError("a memory gate needs readers >= 1 and queue >= 1")
        self.readers = readers
        self.queue = queue
        self._gates: dict[str, _Gate] = {}
        self._seen: dict[str, float] = {}  # memory -> when a request of it last ended

    def waiting(self, key: str) -> int:
        gate = self._gates.get(key)
        return 0 if gate is None else gate.waiting

    def check_room(self, key: str) -> None:
        """429 ``busy`` when ``key``'s queue is full (checked before a job is accepted)."""
        if self.waiting(key) >= self.queue:
            raise _busy(self.queue)

    def others_busy(self, key: str) -> bool:
        """Whether a memory other than ``key`` has requests waiting or running, or had one in the last
        ``RECENT`` seconds (a client between two requests is still being served); safe from any thread."""
        if len(self._gates) > (1 if key in self._gates else 0):
            return True
        now = time.monotonic()
        return any(k != key and now - seen < RECENT for k, seen in list(self._seen.items()))

    def _saw(self, key: str) -> None:
        now = time.monotonic()
        self._seen[key] = now
        if len(self._seen) > 2 * len(self._gates) + 64:  # forget memories not seen lately
            self._seen = {k: t for k, t in self._seen.items() if now - t < RECENT}

    @asynccontextmanager
    async def write(self, key: str) -> AsyncIterator[WriteTurn]:
        """Hold ``key``'s write turn (one at a time, in arrival order) for the block. Run the work through
        the turn (:meth:`WriteTurn.timed`): while other memories are busy, the turn is held after the block
        ``PACE`` times as long as the work kept its worker busy (CPU time not yet paid by a pause; at most
        ``MAX_PAUSE``)."""
        async with self._enter(key, write=True):
            turn = WriteTurn(lambda: self.others_busy(key))
            yield turn
            owed = turn.worked - turn.paid
            if self.others_busy(key):
                await asyncio.sleep(min(max(PACE * owed, MIN_INTERVAL - turn.worked), MAX_PAUSE))

    @asynccontextmanager
    async def read(self, key: str) -> AsyncIterator[None]:
        """Hold one of ``key``'s read turns for the block."""
        async with self._enter(key, write=False):
            yield

    @asynccontextmanager
    async def _enter(self, key: str, *, write: bool) -> AsyncIterator[None]:
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate(asyncio.Semaphore(1), asyncio.Semaphore(self.readers))
        semaphore = gate.writes if write else gate.reads
        if semaphore.locked() and gate.waiting >= self.queue:
            if gate.users == 0:
                del self._gates[key]
            raise _busy(self.queue)
        gate.users += 1
        try:
            gate.waiting += 1
            try:
                await semaphore.acquire()
            finally:
                gate.waiting -= 1
            try:
                yield
            finally:
                semaphore.release()
        finally:
            gate.users -= 1
            self._saw(key)
            if gate.users == 0 and self._gates.get(key) is gate:
                del self._gates[key]


def _busy(queue: int) -> ApiError:
    return ApiError(
        429,
        "busy",
        f"this memory already has {queue} requests waiting; retry after a moment",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )
