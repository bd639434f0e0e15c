"""Background ingest jobs: run ``Memory.add`` in a worker thread, report status and progress.

Jobs live in this process (a restart forgets them; what they committed stays stored and a
re-run of the same add resumes). At most ``concurrency`` run at once; the rest queue, on the event
loop (no worker thread held), each behind its memory's write gate (:mod:`anchormem.server.gate`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import anyio.to_thread

from anchormem.errors import AnchorMemError
from anchormem.ingest.pipeline import Progress
from anchormem.model import IngestReport, Scope
from anchormem.server.errors import classify
from anchormem.server.gate import Gates, key_of
from anchormem.wire.serialize import report_dict

log = logging.getLogger("anchormem.server")

IngestCall = Callable[[Progress], IngestReport]


@dataclass
class Job:
    id: str
    scope: Scope
    turns: int
    status: str = "queued"
    progress: dict[str, tuple[int, int]] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None

    def on_progress(self, stage: str, done: int, total: int) -> None:
        """Called from the worker thread by the ingest pipeline."""
        self.progress[stage] = (done, total)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "user_id": self.scope.user_id,
            "agent_id": self.scope.agent_id,
            "run_id": self.scope.run_id,
            "status": self.status,
            "turns": self.turns,
            "progress": [{"stage": s, "done": d, "total": t} for s, (d, t) in list(self.progress.items())],
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "result": self.result,
            "error": self.error,
        }


class JobManager:
    def __init__(self, concurrency: int = 2, keep: int = 1000, gates: Gates | None = None) -> None:
        self.concurrency = concurrency
        self.keep = keep
        self.gates = gates if gates is not None else Gates()
        self._jobs: dict[str, Job] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots: asyncio.Semaphore | None = None
        self._lock = threading.Lock()

    def submit(self, scope: Scope, turns: int, call: IngestCall) -> Job:
        """Queue ``call`` (run in a worker thread with the job's progress callback, when the memory's
        write turn comes: a queued job holds no worker). 429 ``busy`` when the memory's queue is full."""
        self.gates.check_room(key_of(scope))
        job = Job(id=f"job-{uuid.uuid4().hex[:16]}", scope=scope, turns=turns)
        with self._lock:
            self._jobs[job.id] = job
            self._evict()
        task = asyncio.get_running_loop().create_task(self._run(job, call))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def get(self, job_id: str, scope_user: str) -> Job | None:
        """The job, only if it belongs to ``scope_user`` (another user's job does not exist)."""
        job = self._jobs.get(job_id)
        return job if job is not None and job.scope.user_id == scope_user else None

    def running(self) -> int:
        return sum(j.status in ("queued", "running") for j in list(self._jobs.values()))

    async def _run(self, job: Job, call: IngestCall) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)
        async with self.gates.write(key_of(job.scope)) as turn, self._slots:
            job.status, job.started = "running", time.time()
            try:
                report = await anyio.to_thread.run_sync(turn.timed(partial(call, turn.pacer(job.on_progress))))
            except AnchorMemError as exc:
                _, code = classify(exc)
                job.error = {"code": code, "message": " ".join(str(exc).split())}
                job.status = "failed"
            except Exception:
                log.exception("ingest job %s failed unexpectedly", job.id)
                job.error = {"code": "internal_error", "message": "internal error (see the server log)"}
                job.status = "failed"
            else:
                job.result = report_dict(report)
                job.status = "succeeded"
            finally:
                job.finished = time.time()

    async def drain(self, timeout: float = 30.0) -> None:
        """Wait (bounded) for queued and running jobs, e.g. at shutdown."""
        tasks = list(self._tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def _evict(self) -> None:
        done = [j for j in self._jobs.values() if j.finished is not None]
        for job in sorted(done, key=lambda j: j.finished or 0.0)[: max(0, len(self._jobs) - self.keep)]:
            del self._jobs[job.id]
