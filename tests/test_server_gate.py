"""Requests that wait for a memory never hold the server's shared workers (issue 30, item 1): per-memory
gates (one write, a few reads at a time, a bounded queue, 429 ``busy`` beyond it) and a bound on
foreground adds."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest

from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.errors import ApiError
from anchormem.server.gate import Gates, memory_key
from anchormem.server.keys import KeyRing

KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob"]})
A = {"Authorization": "Bearer key-alice"}
B = {"Authorization": "Bearer key-bob"}
WORKERS = 40  # anyio's default thread limit: what run_in_threadpool shares between all requests


def one_message(i: int) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": f"note {i}", "session": f"s{i}"}]}


# -- the gates alone ---------------------------------------------------------------------------------------------


def test_one_write_at_a_time_in_arrival_order() -> None:
    async def run() -> list[int]:
        gates, order = Gates(readers=2, queue=10), []

        async def write(i: int) -> None:
            async with gates.write("alice"):
                order.append(i)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(write(i) for i in range(6)))
        assert gates.waiting("alice") == 0 and not gates._gates, "an idle memory's gate is dropped"
        return order

    assert asyncio.run(run()) == list(range(6))


def test_reads_are_bounded_per_memory_not_across_memories() -> None:
    async def run() -> tuple[int, int]:
        gates = Gates(readers=2, queue=10)
        running = {"alice": 0, "bob": 0}
        peak = {"alice": 0, "bob": 0}

        async def read(user: str) -> None:
            async with gates.read(user):
                running[user] += 1
                peak[user] = max(peak[user], running[user])
                await asyncio.sleep(0.02)
                running[user] -= 1

        await asyncio.gather(*(read(u) for u in ["alice"] * 6 + ["bob"] * 6))
        return peak["alice"], peak["bob"]

    assert asyncio.run(run()) == (2, 2)


def test_a_full_queue_is_refused_with_busy_and_retry_after() -> None:
    async def run() -> None:
        gates = Gates(readers=1, queue=2)
        hold = asyncio.Event()

        async def write() -> None:
            async with gates.write("alice"):
                await hold.wait()

        tasks = [asyncio.create_task(write()) for _ in range(3)]  # one runs, two wait
        await asyncio.sleep(0.01)
        assert gates.waiting("alice") == 2
        with pytest.raises(ApiError) as refused:
            async with gates.write("alice"):
                pass
        assert refused.value.status_code == 429 and refused.value.code == "busy"
        assert refused.value.headers is not None and int(refused.value.headers["Retry-After"]) > 0
        with pytest.raises(ApiError):
            gates.check_room("alice")
        async with gates.write("bob"):  # another memory is not affected
            pass
        hold.set()
        await asyncio.gather(*tasks)

    asyncio.run(run())


def test_writes_are_paced_only_while_other_memories_are_served() -> None:
    async def gap(others: bool) -> float:
        gates, ends, starts = Gates(), [], []

        async def write() -> None:
            async with gates.write("alice") as turn:
                starts.append(time.monotonic())
                await asyncio.to_thread(turn.timed(lambda: time.sleep(0.05)))
                ends.append(time.monotonic())

        async def other() -> None:
            async with gates.read("bob"):
                await asyncio.sleep(0.5)

        reader = asyncio.create_task(other()) if others else None
        await asyncio.sleep(0)
        await asyncio.gather(write(), write())
        if reader is not None:
            await reader
        return starts[1] - ends[0]

    assert asyncio.run(gap(others=False)) < 0.05, "alone, a memory's writes follow each other at once"
    assert asyncio.run(gap(others=True)) >= 0.14, "with bob served, alice's next write waits PACE times its work"


def test_an_agents_own_memory_is_its_own_gate() -> None:
    assert memory_key("alice", "coach") == memory_key("alice") != memory_key(None, "coach") != memory_key("", "other")


# -- through the app -------------------------------------------------------------------------------------------


def blocking(memory: Memory, monkeypatch: pytest.MonkeyPatch, method: str, release: threading.Event) -> None:
    """``memory.<method>`` for alice waits until ``release`` (as a long write or a slow read would)."""
    real = getattr(memory, method)

    def slow(*args: Any, **kwargs: Any) -> Any:
        scope = getattr(args[0], "scope", None) if args else None
        if kwargs.get("user_id") == "alice" or getattr(scope, "user_id", None) == "alice":
            release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(memory, method, slow)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("add", "/v1/users/alice/memories", one_message(0)),
        ("search", "/v1/users/alice/search", {"query": "note"}),
    ],
)
def test_requests_waiting_for_one_memory_leave_workers_for_other_users(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, method: str, path: str, body: dict[str, Any]
) -> None:
    release = threading.Event()
    blocking(memory, monkeypatch, method, release)
    app = create_app(memory, KEYS, warm=False)

    async def run() -> tuple[float, list[int]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:
            waiting = [asyncio.create_task(c.post(path, json=body, headers=A)) for _ in range(WORKERS + 20)]
            try:
                await asyncio.sleep(0.5)  # alice's requests are in: more than the server has workers
                started = time.perf_counter()
                r = await asyncio.wait_for(c.post("/v1/users/bob/search", json={"query": "x"}, headers=B), 15)
                took = time.perf_counter() - started
                assert r.status_code == 200, r.text
            finally:
                release.set()
            codes = [r.status_code for r in await asyncio.gather(*waiting)]
        return took, codes

    took, codes = asyncio.run(run())
    assert took < 5, f"bob's search waited {took:.1f} s behind alice's requests"
    assert codes == [200] * (WORKERS + 20), "all of alice's requests ran in turn (they fit in her queue)"


def test_a_full_memory_queue_answers_429_busy_for_adds_and_jobs(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    blocking(memory, monkeypatch, "add", release)
    app = create_app(memory, KEYS, warm=False, queue_per_memory=3)

    async def run() -> tuple[list[httpx.Response], httpx.Response, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:
            queued = []
            try:
                for i in range(4):  # one runs (blocked), three wait
                    queued.append(
                        asyncio.create_task(c.post("/v1/users/alice/memories", json=one_message(i), headers=A))
                    )
                    await asyncio.sleep(0.1)
                refused = await c.post("/v1/users/alice/memories", json=one_message(9), headers=A)
                job = await c.post("/v1/users/alice/memories", json={**one_message(10), "background": True}, headers=A)
                other = await c.post("/v1/users/bob/memories", json=one_message(11), headers=B)
            finally:
                release.set()
            return list(await asyncio.gather(*queued)), refused, job, other

    queued, refused, job, other = asyncio.run(run())
    assert [r.status_code for r in queued] == [200] * 4
    for r in (refused, job):
        assert r.status_code == 429 and r.json()["error"]["code"] == "busy", r.text
        assert int(r.headers["Retry-After"]) > 0
    assert other.status_code == 200, "bob's memory has its own queue"
    assert memory.stats(user_id="alice").turns == 4, "a refused add stored nothing"


def test_a_huge_foreground_add_is_refused_and_an_unmarked_one_becomes_a_job(memory: Memory) -> None:
    app = create_app(memory, KEYS, warm=False, foreground_turns=5, background_turns=200)
    turns = [{"role": "user", "content": f"message {i}", "session": "1"} for i in range(6)]

    async def run() -> tuple[httpx.Response, httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:
            refused = await c.post("/v1/users/alice/memories", json={"messages": turns, "background": False}, headers=A)
            job = await c.post("/v1/users/alice/memories", json={"messages": turns}, headers=A)
            small = await c.post("/v1/users/bob/memories", json={"messages": turns[:5], "background": False}, headers=B)
            await app.state.service.jobs.drain()
            return refused, job, small

    refused, job, small = asyncio.run(run())
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_input"
    message = refused.json()["error"]["message"]
    assert "at most 5 turns" in message and "6" in message and "background: true" in message
    assert job.status_code == 202, "without background, an add over the foreground bound runs as a job"
    assert small.status_code == 200
