"""``AsyncMemory``: every public method of ``Memory`` as an awaitable with the same results and errors,
run off the event loop."""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

import pytest

from anchormem.aio import AsyncMemory
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, NotFoundError
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, SESSION_2, messages

QUERY = "What is the name of Ana's dog?"


def public_methods(cls: type) -> set[str]:
    return {
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_") and callable(value) and not isinstance(value, (classmethod, staticmethod, type))
    } - {"from_env", "close"}


def test_every_public_method_of_memory_is_awaitable(memory: Memory) -> None:
    amem = AsyncMemory.wrap(memory)
    missing = [name for name in public_methods(Memory) if not inspect.iscoroutinefunction(getattr(amem, name))]
    assert missing == []
    assert inspect.iscoroutinefunction(amem.aclose)


def test_results_and_errors_are_the_facades(memory: Memory) -> None:
    async def run() -> None:
        amem = AsyncMemory.wrap(memory)
        report = await amem.add(messages(SESSION_1, session="1"), user_id="alice")
        assert report.turns_added == len(SESSION_1)
        await amem.add(messages(SESSION_2, session="2"), user_id="alice")
        assert await amem.search(QUERY, user_id="alice") == memory.search(QUERY, user_id="alice")
        assert await amem.turns(user_id="alice") == memory.turns(user_id="alice")
        assert await amem.records("events", user_id="alice") == memory.events(user_id="alice")
        fact = memory.facts(user_id="alice")[0]
        assert await amem.get(fact.id, user_id="alice") == fact
        assert await amem.stats(user_id="alice") == memory.stats(user_id="alice")
        assert await amem.history(user_id="alice") == memory.history(user_id="alice")
        exported = await amem.export(user_id="alice")
        assert exported == list(memory.export(user_id="alice"))
        assert await amem.users() == memory.users()
        with pytest.raises(NotFoundError):
            await amem.get("f-0000000000000000", user_id="alice")
        with pytest.raises(InputError):
            await amem.search("  ", user_id="alice")
        turn = memory.turns(user_id="alice")[0]
        updated = await amem.update(turn.id, "I adopted a cat, Miso.", user_id="alice")
        assert updated.updated and memory.turns(user_id="alice")[0].text == "I adopted a cat, Miso."
        with pytest.raises(NotFoundError):
            await amem.update("nope", "x", user_id="alice")
        assert (await amem.delete(user_id="alice", session="2")).turns == len(SESSION_2)

    asyncio.run(run())


def test_calls_run_in_worker_threads_and_concurrently(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two searches held inside the facade at once: both must be running together, off the loop's thread."""
    memory.add(messages(SESSION_1), user_id="alice")
    inside = threading.Barrier(2, timeout=10)
    threads: list[int] = []
    real = Memory.search

    def search(self: Memory, *args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        inside.wait()  # breaks (BrokenBarrierError) unless both calls are in here at the same time
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Memory, "search", search)

    async def run() -> int:
        amem = AsyncMemory.wrap(memory)
        results = await asyncio.gather(amem.search(QUERY, user_id="alice"), amem.search("beach", user_id="alice"))
        assert all(r.contexts for r in results)
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert len(set(threads)) == 2 and loop_thread not in threads


def test_built_from_settings_and_closed_by_async_with(settings: Settings) -> None:
    async def run() -> None:
        async with AsyncMemory(settings, embedder=HashEmbedder()) as amem:
            await amem.add(messages([("Bob", "I keep bees on the roof.")]), user_id="bob")
            assert [t.text for t in await amem.turns(user_id="bob")] == ["I keep bees on the roof."]
            assert amem.settings is amem.sync.settings

    asyncio.run(run())
