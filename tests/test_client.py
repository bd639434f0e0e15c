"""``Client`` and ``AsyncClient`` against the real REST service (uvicorn on a loopback port): the same
results, types and errors as the ``Memory`` the service wraps."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from anchormem.client import AsyncClient, Client, reads
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import (
    AccessDeniedError,
    InputError,
    LLMNotConfiguredError,
    LLMUnavailableError,
    NotFoundError,
    ServiceError,
    StoreFullError,
    StoreUnavailableError,
)
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import Answer, IngestReport, Scope, SearchResult, UpdateReport
from tests.fixtures import SESSION_1, SESSION_2, add_user_and_coach_budget, messages
from tests.live_server import LiveServer, free_port, serve

QUERY = "What is the name of Ana's dog?"


@pytest.fixture
def server(memory: Memory) -> Iterator[LiveServer]:
    with serve(memory) as live:
        yield live


@pytest.fixture
def client(server: LiveServer) -> Iterator[Client]:
    with Client(server.url, api_key=server.admin_key) as c:
        yield c


def fill(client: Client) -> tuple[IngestReport, IngestReport]:
    return (
        client.add(messages(SESSION_1, session="1"), user_id="alice"),
        client.add(messages(SESSION_2, session="2"), user_id="alice"),
    )


def test_client_results_equal_the_local_memory(client: Client, memory: Memory) -> None:
    first, _ = fill(client)
    assert isinstance(first, IngestReport) and first.turns_added == len(SESSION_1)

    result = client.search(QUERY, user_id="alice", k=3)
    assert isinstance(result, SearchResult)
    assert result == memory.search(QUERY, user_id="alice", k=3)
    assert result.contexts and result.turn_ids

    assert client.turns(user_id="alice") == memory.turns(user_id="alice")
    assert client.contexts(user_id="alice") == memory.contexts(user_id="alice")
    assert client.facts(user_id="alice") == memory.facts(user_id="alice")
    assert client.events(user_id="alice") == memory.events(user_id="alice")
    assert client.records("facts", user_id="alice") == memory.facts(user_id="alice")
    assert client.stats(user_id="alice") == memory.stats(user_id="alice")
    assert client.history(user_id="alice") == memory.history(user_id="alice")
    assert list(client.export(user_id="alice")) == list(memory.export(user_id="alice"))
    assert client.users() == memory.users()


def test_get_rebuilds_the_record_type_from_its_id(client: Client, memory: Memory) -> None:
    fill(client)
    again = [(who, said.replace(",", ";", 1)) for who, said in SESSION_1[2:3]]  # said again: an offline event
    client.add(messages(again, session="3"), user_id="alice")
    for record in (
        memory.turns(user_id="alice")[0],
        memory.contexts(user_id="alice")[0],
        memory.facts(user_id="alice")[0],
        memory.events(user_id="alice")[0],
    ):
        got = client.get(record.id, user_id="alice")
        assert type(got) is type(record) and got == record


def test_lists_are_read_page_by_page(client: Client, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    fill(client)
    monkeypatch.setattr(reads, "PAGE", 2)
    assert len(memory.turns(user_id="alice")) > 2
    assert client.turns(user_id="alice") == memory.turns(user_id="alice")


def test_delete_and_add_shapes(client: Client, memory: Memory) -> None:
    client.add("I keep bees on the roof.", user_id="bob")
    client.add({"role": "assistant", "content": "Bees on a roof, lovely."}, user_id="bob")
    assert [t.text for t in memory.turns(user_id="bob")] == ["I keep bees on the roof.", "Bees on a roof, lovely."]
    report = client.delete(user_id="bob", all=True)
    assert report.turns == 2
    assert memory.users() == []


def test_background_adds_are_polled_to_their_report(client: Client, memory: Memory) -> None:
    client.poll_seconds = 0.05
    report = client.add(messages(SESSION_1), user_id="alice", background=True)
    assert report.turns_added == len(SESSION_1)
    assert len(memory.turns(user_id="alice")) == len(SESSION_1)


def test_errors_are_the_library_errors(client: Client, server: LiveServer) -> None:
    fill(client)
    with pytest.raises(NotFoundError) as missing:
        client.get("f-0000000000000000", user_id="alice")
    assert missing.value.status == 404 and missing.value.code == "not_found"  # type: ignore[attr-defined]
    with pytest.raises(InputError):
        client.search(" ", user_id="alice")
    with pytest.raises(InputError) as invalid:
        client.search(QUERY, user_id="alice", k=0)
    assert invalid.value.code == "validation_error"  # type: ignore[attr-defined]
    with pytest.raises(LLMNotConfiguredError):
        client.answer(QUERY, user_id="alice")

    with Client(server.url, api_key="amk_wrong") as wrong, pytest.raises(AccessDeniedError) as denied:
        wrong.search(QUERY, user_id="alice")
    assert denied.value.status == 401  # type: ignore[attr-defined]
    with Client(server.url, api_key=server.alice_key) as alice:
        assert alice.search(QUERY, user_id="alice").contexts
        with pytest.raises(AccessDeniedError) as forbidden:
            alice.stats(user_id="bob")
    assert forbidden.value.code == "forbidden"  # type: ignore[attr-defined]


def test_an_unreachable_service_is_a_service_error() -> None:
    with (
        Client(f"http://127.0.0.1:{free_port()}", api_key="k", timeout=5) as nobody,
        pytest.raises(ServiceError, match="cannot reach"),
    ):
        nobody.health()


def test_answer_comes_back_as_an_answer(settings: Settings) -> None:
    def responder(msgs: list[Any]) -> str:
        content = msgs[-1]["content"]
        if "Excerpt:" in content:
            return json.dumps(["Ana adopted a dog named Pico"])
        if "question" in content.lower():
            return json.dumps({"answer": "Pico", "turn_ids": ["1"]})
        return json.dumps({"event": "Ana adopted Pico"})

    with (
        Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(responder)) as memory,
        serve(memory) as live,
        Client(live.url, api_key=live.admin_key) as client,
    ):
        client.add(messages(SESSION_1), user_id="alice")
        answer = client.answer(QUERY, user_id="alice")
    assert isinstance(answer, Answer) and answer.text == "Pico"
    assert isinstance(answer.memories, SearchResult) and answer.memories.contexts


def test_async_client_matches_the_local_memory(server: LiveServer, memory: Memory) -> None:
    async def run() -> None:
        async with AsyncClient(server.url, api_key=server.admin_key) as client:
            report = await client.add(messages(SESSION_1), user_id="alice")
            assert report.turns_added == len(SESSION_1)
            searches = await asyncio.gather(*(client.search(QUERY, user_id="alice", k=k) for k in (1, 2, 3)))
            assert searches == [memory.search(QUERY, user_id="alice", k=k) for k in (1, 2, 3)]
            assert await client.turns(user_id="alice") == memory.turns(user_id="alice")
            fact = memory.facts(user_id="alice")[0]
            assert await client.get(fact.id, user_id="alice") == fact
            assert await client.stats(user_id="alice") == memory.stats(user_id="alice")
            assert await client.export(user_id="alice") == list(memory.export(user_id="alice"))
            with pytest.raises(NotFoundError):
                await client.get("c-0000000000000000", user_id="alice")
            assert (await client.delete(user_id="alice", session="1")).turns == len(SESSION_1)

    asyncio.run(run())


def scripted(*answers: httpx.Response) -> tuple[Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return queue.pop(0)

    return Client("http://service.invalid", api_key="k", transport=httpx.MockTransport(handler)), seen


def job(status: str, **extra: Any) -> dict[str, Any]:
    return {"id": "job-1", "status": status, "result": None, "error": None, **extra}


def test_a_failed_background_job_raises_the_error_of_its_code() -> None:
    client, seen = scripted(
        httpx.Response(202, json=job("queued")),
        httpx.Response(200, json=job("failed", error={"code": "llm_unavailable", "message": "LLM down"})),
    )
    client.poll_seconds = 0
    with pytest.raises(LLMUnavailableError, match="LLM down"):
        client.add("hello", user_id="u", idempotency_key="add-42")
    assert seen[0].headers["Idempotency-Key"] == "add-42" and seen[0].headers["Authorization"] == "Bearer k"
    assert json.loads(seen[0].content)["messages"] == [{"role": "user", "content": "hello"}]
    assert seen[1].url.path == "/v1/users/u/jobs/job-1"


def test_unknown_codes_and_bodies_map_by_status() -> None:
    client, _ = scripted(
        httpx.Response(429, json={"error": {"code": "rate_limited", "message": "slow down"}}),
        httpx.Response(502, text="<html>bad gateway</html>"),
    )
    with pytest.raises(InputError, match="slow down") as limited:
        client.stats(user_id="u")
    assert limited.value.code == "rate_limited"  # type: ignore[attr-defined]
    with pytest.raises(ServiceError, match="bad gateway") as gateway:
        client.stats(user_id="u")
    assert gateway.value.status == 502  # type: ignore[attr-defined]


def test_every_code_the_service_answers_raises_the_library_error_it_was_answered_for() -> None:
    client, _ = scripted(
        httpx.Response(507, json={"error": {"code": "store_full", "message": "disk full"}}),
        httpx.Response(503, json={"error": {"code": "store_unavailable", "message": "store down"}}),
    )
    with pytest.raises(StoreFullError, match="disk full"):
        client.stats(user_id="u")
    with pytest.raises(StoreUnavailableError, match="store down"):
        client.stats(user_id="u")


def test_user_ids_are_escaped_in_paths() -> None:
    client, seen = scripted(httpx.Response(200, json={"items": []}))
    client.history(user_id="a/b c")
    assert seen[0].url.raw_path == b"/v1/users/a%2Fb%20c/history"


def test_update_through_both_clients_with_a_retried_key(server: LiveServer, memory: Memory) -> None:
    first = messages(SESSION_1)
    first[0]["id"] = "D1/1 adopt"  # a turn id that needs escaping in the path
    with Client(server.url, api_key=server.admin_key) as client:
        client.add(first, user_id="alice")
        report = client.update("D1/1 adopt", "I adopted a cat, Miso.", user_id="alice", idempotency_key="fix-1")
        assert isinstance(report, UpdateReport) and report.updated and report.contexts_superseded == 1
        again = client.update("D1/1 adopt", "I adopted a cat, Miso.", user_id="alice", idempotency_key="fix-1")
        assert again == report  # the stored answer: a second run would say updated=False
        with pytest.raises(InputError) as reused:
            client.update("D1/1 adopt", "Something else.", user_id="alice", idempotency_key="fix-1")
        assert reused.value.code == "idempotency_key_reused"  # type: ignore[attr-defined]
        with pytest.raises(NotFoundError):
            client.update("nope", "x", user_id="alice")
    assert memory.turns(user_id="alice")[0].text == "I adopted a cat, Miso."

    async def run() -> UpdateReport:
        async with AsyncClient(server.url, api_key=server.admin_key) as aclient:
            return await aclient.update("D1/1 adopt", "I adopted a dog, Pico.", user_id="alice")

    assert asyncio.run(run()).updated and memory.turns(user_id="alice")[0].text == "I adopted a dog, Pico."
    assert [h.op for h in memory.history(user_id="alice")] == ["add", "update", "update"]


def test_clients_pass_sub_scopes_and_filters(client: Client, server: LiveServer, memory: Memory) -> None:
    from datetime import datetime

    add_user_and_coach_budget(memory)
    narrowings: list[dict[str, Any]] = [
        {},
        {"include_subscopes": False},
        {"filters": {"topic": "work"}},
        {"session": "2"},
        {"since": datetime(2024, 5, 1), "until": 1717000000},
    ]
    for narrowing in narrowings:
        local = memory.search("budget", user_id="alice", **narrowing)
        assert client.search("budget", user_id="alice", **narrowing) == local, narrowing
    remote = client.search("budget", user_id="alice", session="2")
    assert [h.scope for h in remote.contexts] == [Scope("alice", "coach")]

    async def run() -> SearchResult:
        async with AsyncClient(server.url, api_key=server.admin_key) as aclient:
            return await aclient.search("budget", user_id="alice", filters={"topic": "work"})

    assert [h.context.session for h in asyncio.run(run()).contexts] == ["1"]


def test_a_misspelt_scope_keyword_is_a_type_error_not_another_memory() -> None:
    client, seen = scripted(httpx.Response(200, json={"items": [], "next_offset": None}))
    for call in (
        lambda: client.turns(user_id="alice", agnet_id="coach"),  # type: ignore[call-arg]
        lambda: client.stats(user_id="alice", run="r1"),  # type: ignore[call-arg]
        lambda: client.delete(user_id="alice", all=True, agentid="coach"),  # type: ignore[call-arg]
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call()
    assert seen == []  # refused before anything was sent


def test_an_agents_own_memory_is_the_path_user_dash() -> None:
    client, seen = scripted(httpx.Response(200, json={"items": []}))
    client.history(agent_id="coach")
    assert seen[0].url.raw_path == b"/v1/users/-/history?agent_id=coach"
