"""An agent's own memory (a scope with an agent and no user) over REST: the path user ``-``, reached by
``Client``/``AsyncClient`` with ``user_id=None``, guarded by keys that are admin or list ``-``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from anchormem.client import AsyncClient, Client
from anchormem.errors import AccessDeniedError, InputError
from anchormem.memory import Memory
from anchormem.model import Scope, SearchResult
from tests.fixtures import SESSION_1, messages
from tests.live_server import LiveServer, serve

QUERY = "What is the name of Ana's dog?"


@pytest.fixture
def server(memory: Memory) -> Iterator[LiveServer]:
    with serve(memory) as live:
        yield live


@pytest.mark.parametrize("key", ["admin_key", "agents_key"])
def test_client_adds_searches_and_deletes_an_agents_own_memory(server: LiveServer, memory: Memory, key: str) -> None:
    memory.add(messages(SESSION_1, session="1"), user_id="alice", agent_id="coach")  # a user's coach: not in it
    with Client(server.url, api_key=getattr(server, key)) as client:
        report = client.add(messages(SESSION_1, session="1"), agent_id="coach")
        assert report.turns_added == len(SESSION_1)
        assert memory.turns(agent_id="coach") == client.turns(agent_id="coach")
        assert memory.stats(agent_id="coach").turns == len(SESSION_1)

        result = client.search(QUERY, agent_id="coach", k=3)
        assert result == memory.search(QUERY, agent_id="coach", k=3)
        assert result.contexts and {h.scope for h in result.contexts} == {Scope("", "coach")}
        assert client.records("facts", agent_id="coach") == memory.facts(agent_id="coach")

        deleted = client.delete(agent_id="coach", all=True)
        assert deleted.turns == len(SESSION_1)
    assert memory.store.turns(Scope("", "coach")) == []
    assert len(memory.turns(user_id="alice", agent_id="coach")) == len(SESSION_1)  # the user's agent is untouched


def test_async_client_reaches_an_agents_own_memory(server: LiveServer, memory: Memory) -> None:
    memory.add(messages(SESSION_1, session="1"), agent_id="coach")

    async def run() -> SearchResult:
        async with AsyncClient(server.url, api_key=server.agents_key) as client:
            return await client.search(QUERY, agent_id="coach")

    assert asyncio.run(run()) == memory.search(QUERY, agent_id="coach")


def test_a_key_without_dash_may_not_touch_agents_own_memories(server: LiveServer, memory: Memory) -> None:
    memory.add(messages(SESSION_1, session="1"), agent_id="coach")
    with Client(server.url, api_key=server.alice_key) as client:
        with pytest.raises(AccessDeniedError) as denied:
            client.search(QUERY, agent_id="coach")
        assert denied.value.status == 403  # type: ignore[attr-defined]
        with pytest.raises(AccessDeniedError):
            client.delete(agent_id="coach", all=True)
    with Client(server.url, api_key=server.agents_key) as client, pytest.raises(AccessDeniedError):
        client.search(QUERY, user_id="alice")  # and a "-" key may not touch users
    assert len(memory.turns(agent_id="coach")) == len(SESSION_1)


def test_users_lists_agents_own_memories_to_keys_that_may_touch_them(server: LiveServer, memory: Memory) -> None:
    memory.add(messages(SESSION_1, session="1"), agent_id="coach")
    memory.add(messages(SESSION_1, session="1"), user_id="alice")
    with Client(server.url, api_key=server.agents_key) as client:
        assert client.users() == [Scope("", "coach")]
    with Client(server.url, api_key=server.alice_key) as client:
        assert client.users() == [Scope("alice")]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/users/-/search", {"query": QUERY}),
        ("POST", "/v1/users/-/memories", {"messages": [{"role": "user", "content": "hi"}]}),
        ("GET", "/v1/users/-/stats", None),
        ("DELETE", "/v1/users/-/memories?all=true", None),
    ],
)
def test_dash_without_an_agent_is_invalid_input(
    server: LiveServer, memory: Memory, method: str, path: str, body: object
) -> None:
    memory.add(messages(SESSION_1, session="1"), agent_id="coach")
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    response = httpx.request(method, server.url + path, json=body, headers=headers)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and "agent_id" in error["message"]
    assert len(memory.turns(agent_id="coach")) == len(SESSION_1)


def test_a_client_call_without_user_or_agent_is_refused_before_sending() -> None:
    with Client("http://127.0.0.1:9", api_key="k") as client, pytest.raises(InputError, match="agent_id"):
        client.search(QUERY)
