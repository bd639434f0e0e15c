"""The keyword arguments ``Memory`` and ``AsyncMemory`` share (a scope, a search's narrowing, the parts a
memory is built with) are checked like a function's own: a misspelt one is a ``TypeError``, never a
different scope or a silently dropped filter."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from anchormem.aio import AsyncMemory
from anchormem.client import Client
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.wire.args import ScopeArgs, SearchArgs
from tests.fixtures import SESSION_1, messages


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.turns(user_id="alice", agnet_id="coach"),
        lambda m: m.records("facts", user_id="alice", run="r1"),
        lambda m: m.get("f-1", user_id="alice", agent="coach"),
        lambda m: m.stats(user="alice"),
        lambda m: m.search("dog", user_id="alice", filter={"topic": "work"}),
        lambda m: m.answer("dog?", user_id="alice", sesion="1"),
        lambda m: m.add("hello", user_id="alice", agentid="coach"),
        lambda m: m.delete(user_id="alice", all=True, run="r1"),
        lambda m: m.history(user_id="alice", agent="coach"),
        lambda m: list(m.export(user_id="alice", run="r1")),
    ],
)
def test_a_misspelt_keyword_is_a_type_error(memory: Memory, call: Callable[[Memory], Any]) -> None:
    memory.add(messages(SESSION_1, session="1"), user_id="alice")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        call(memory)
    assert memory.stats(user_id="alice").turns == len(SESSION_1)  # nothing was deleted or added


def test_the_async_facade_checks_them_the_same(memory: Memory) -> None:
    async def run() -> None:
        amem = AsyncMemory.wrap(memory)
        with pytest.raises(TypeError, match="unexpected keyword argument 'agnet_id'"):
            await amem.search("dog", user_id="alice", agnet_id="coach")  # type: ignore[call-arg]

    asyncio.run(run())


def test_parts_are_named_store_embedder_and_llm(settings: Settings) -> None:
    with pytest.raises(TypeError, match="'embeder'"):
        Memory(settings, embeder=HashEmbedder())  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'embeder'"):
        AsyncMemory(settings, embeder=HashEmbedder())  # type: ignore[call-arg]


def test_every_facade_presents_memorys_parameters(memory: Memory) -> None:
    amem = AsyncMemory.wrap(memory)
    client = Client("http://service.invalid", api_key="k")
    for name in ("add", "search", "answer", "turns", "get", "stats", "update", "delete", "history", "export"):
        wanted = inspect.signature(getattr(memory, name)).parameters
        assert inspect.signature(getattr(amem, name)).parameters == wanted, name
    for name in ("search", "turns", "get", "stats", "history"):
        assert (
            inspect.signature(getattr(client, name)).parameters == inspect.signature(getattr(memory, name)).parameters
        )
    assert set(ScopeArgs.__optional_keys__) == {"user_id", "agent_id", "run_id"}
    assert set(SearchArgs.__optional_keys__) - ScopeArgs.__optional_keys__ == {
        "k",
        "variant",
        "max_chars",
        "trace",
        "include_subscopes",
        "filters",
        "session",
        "since",
        "until",
    }
