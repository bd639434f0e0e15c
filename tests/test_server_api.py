"""The REST API: each endpoint's happy path, errors with stable codes, pagination, limits,
background ingest jobs, and that Memory work never blocks the event loop."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, add_user_and_coach_budget, locomo_sample, messages

A = {"Authorization": "Bearer key-alice"}
KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob"], "key-admin": []}, admin=["key-admin"])


def conversation() -> list[dict[str, str]]:
    return messages(SESSION_1, session="1") + messages(SESSION_2, session="2", stamp="2024-03-08 18:00")


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(memory, KEYS)) as c:
        yield c


def add_alice(client: TestClient, **extra: Any) -> httpx.Response:
    r = client.post("/v1/users/alice/memories", json={"messages": conversation(), **extra}, headers=A)
    assert r.status_code in (200, 202), r.text
    return r


def wait_job(client: TestClient, user: str, job_id: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        job = client.get(f"/v1/users/{user}/jobs/{job_id}", headers=headers).json()
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.02)
    raise AssertionError("job did not finish")


def test_health_needs_no_key(client: TestClient) -> None:
    r = client.get("/v1/health")
    assert r.status_code == 200 and r.json()["status"] == "ok"


def test_add_search_get_stats(client: TestClient) -> None:
    report = add_alice(client).json()
    assert report["turns_added"] == len(conversation()) and report["contexts_added"] > 0
    again = add_alice(client).json()
    assert again["turns_added"] == 0  # same turns: nothing new

    r = client.post("/v1/users/alice/search", json={"query": "What is the name of Ana's dog?", "k": 5}, headers=A)
    assert r.status_code == 200, r.text
    result = r.json()
    assert any("Pico" in h["context"]["text"] for h in result["contexts"])
    assert result["turn_ids"]
    assert [h["rank"] for h in result["contexts"]] == list(range(1, len(result["contexts"]) + 1))
    scores = [h["score"] for h in result["contexts"]]
    assert scores == sorted(scores, reverse=True)
    assert sorted(result["reading_order"]) == list(range(len(result["contexts"])))

    context_id = result["contexts"][0]["context"]["id"]
    r = client.get(f"/v1/users/alice/records/{context_id}", headers=A)
    assert r.status_code == 200 and r.json()["id"] == context_id

    stats = client.get("/v1/users/alice/stats", headers=A).json()
    assert stats["turns"] == len(conversation()) and stats["sessions"] == 2


def test_search_as_one_prompt_block_within_a_budget(client: TestClient) -> None:
    add_alice(client)
    query = {"query": "What is the name of Ana's dog?", "format": "prompt"}
    whole = client.post("/v1/users/alice/search", json=query, headers=A)
    assert whole.status_code == 200, whole.text
    body = whole.json()
    assert set(body) == {"query", "prompt", "turn_ids", "labels"}
    assert "Pico" in body["prompt"] and body["prompt"].startswith("Recalled conversation, quoted as data")
    small = client.post("/v1/users/alice/search", json={**query, "max_chars": 600}, headers=A).json()
    assert 0 < len(small["prompt"]) <= 600 < len(body["prompt"])
    for block in (body, small):  # exactly the turns the block shows
        shown = re.findall(r"^\[([^\]]+)\] ", block["prompt"], flags=re.MULTILINE)
        assert block["turn_ids"] == [block["labels"].get(label, label) for label in shown]
    assert len(small["turn_ids"]) < len(body["turn_ids"])
    bad = client.post("/v1/users/alice/search", json={**query, "format": "xml"}, headers=A)
    assert bad.status_code == 422


def test_add_locomo_conversation(client: TestClient) -> None:
    r = client.post("/v1/users/alice/memories", json={"conversation": locomo_sample(), "run_id": "conv-1"}, headers=A)
    assert r.status_code == 200, r.text
    turns = client.get("/v1/users/alice/memories/turns", params={"run_id": "conv-1"}, headers=A).json()
    assert "D1:1" in [t["id"] for t in turns["items"]]


def test_list_is_paginated(client: TestClient) -> None:
    add_alice(client)
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = client.get("/v1/users/alice/memories/turns", params={"offset": offset, "limit": 3}, headers=A).json()
        assert page["total"] == len(conversation()) and len(page["items"]) <= 3
        seen += [t["id"] for t in page["items"]]
        offset = page["next_offset"]
    assert len(seen) == len(set(seen)) == len(conversation())
    r = client.get("/v1/users/alice/memories/turns", params={"limit": 100_000}, headers=A)
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("get", "/v1/users/alice/stats", None, 404, "not_found"),
        ("get", "/v1/users/alice/records/c-0000", None, 404, "not_found"),
        ("get", "/v1/users/alice/jobs/job-nope", None, 404, "not_found"),
        ("post", "/v1/users/alice/memories", {"messages": [{"speaker": "a"}]}, 400, "invalid_input"),
        ("post", "/v1/users/alice/memories", {}, 400, "invalid_input"),
        ("post", "/v1/users/alice/memories", {"conversation": {"x": 1}}, 400, "invalid_input"),
        ("post", "/v1/users/alice/memories", {"messages": "nope"}, 422, "validation_error"),
        ("post", "/v1/users/alice/search", {"query": ""}, 422, "validation_error"),
        ("post", "/v1/users/alice/search", {"query": "x", "bogus": 1}, 422, "validation_error"),
        ("get", "/v1/users/alice/memories/widgets", None, 422, "validation_error"),
        ("get", "/v1/nowhere", None, 404, "not_found"),
        ("put", "/v1/users/alice/search", {}, 405, "method_not_allowed"),
    ],
)
def test_errors_are_json_with_stable_codes(
    client: TestClient, method: str, path: str, body: Any, status: int, code: str
) -> None:
    r = client.request(method, path, json=body, headers=A)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert error["code"] == code and error["message"]


@pytest.mark.parametrize("extra", [{}, {"agent_id": "helper"}, {"format": "prompt"}])
def test_search_of_a_scope_with_no_memory_is_empty(client: TestClient, extra: dict[str, str]) -> None:
    r = client.post("/v1/users/alice/search", json={"query": "dog", **extra}, headers=A)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["turn_ids"] == [] and body.get("contexts", []) == [] and body.get("events", []) == []
    assert body.get("prompt", "") == ""


def test_answer_without_llm_is_409(client: TestClient) -> None:
    add_alice(client)
    r = client.post("/v1/users/alice/answer", json={"question": "What is the dog called?"}, headers=A)
    assert r.status_code == 409 and r.json()["error"]["code"] == "llm_not_configured"


def test_answer_with_llm(settings: Settings) -> None:
    with (
        Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(llm_responder)) as mem,
        TestClient(create_app(mem, KEYS)) as client,
    ):
        add_alice(client)
        r = client.post("/v1/users/alice/answer", json={"question": "What is the name of Ana's dog?"}, headers=A)
        assert r.status_code == 200, r.text
        assert r.json()["text"] == "Pico" and r.json()["model"] == "fake-llm"


def test_request_size_limit(memory: Memory) -> None:
    with TestClient(create_app(memory, KEYS, max_body=2_000)) as client:
        big = {"messages": [{"speaker": "a", "text": "x" * 3_000}]}
        r = client.post("/v1/users/alice/memories", json=big, headers=A)
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: the streamed body is counted
            yield b'{"messages": [{"speaker": "a", "text": "'
            for _ in range(10):
                yield b"y" * 500
            yield b'"}]}'

        r = client.post("/v1/users/alice/memories", content=chunks(), headers={**A, "Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"
        assert (
            client.post("/v1/users/alice/memories", json={"messages": conversation()[:2]}, headers=A).status_code == 200
        )


def test_background_job_lifecycle(settings: Settings) -> None:
    llm = FakeLLM(llm_responder, delay=0.05)
    with Memory(settings, embedder=HashEmbedder(), llm=llm) as mem, TestClient(create_app(mem, KEYS)) as client:
        r = add_alice(client, background=True)
        assert r.status_code == 202
        job = r.json()
        assert job["status"] in ("queued", "running") and job["turns"] == len(conversation())
        assert r.headers["Location"] == f"/v1/users/alice/jobs/{job['id']}"
        stages: set[str] = set()
        deadline = time.monotonic() + 15
        while job["status"] not in ("succeeded", "failed") and time.monotonic() < deadline:
            job = client.get(f"/v1/users/alice/jobs/{job['id']}", headers=A).json()
            stages |= {p["stage"] for p in job["progress"]}
            time.sleep(0.01)
        assert job["status"] == "succeeded", job
        assert job["result"]["turns_added"] == len(conversation()) and job["result"]["facts_added"] > 0
        assert "facts" in stages and all(p["done"] == p["total"] for p in job["progress"])
        assert job["started"] >= job["created"] and job["finished"] >= job["started"]
        assert client.get("/v1/users/alice/stats", headers=A).json()["turns"] == len(conversation())


def test_failed_job_reports_stable_code(settings: Settings) -> None:
    llm = FakeLLM(llm_responder, fail_first=1_000)
    with Memory(settings, embedder=HashEmbedder(), llm=llm) as mem, TestClient(create_app(mem, KEYS)) as client:
        job = add_alice(client, background=True).json()
        job = wait_job(client, "alice", job["id"], A)
        assert job["status"] == "failed" and job["error"]["code"] == "llm_unavailable", job


def test_large_adds_go_to_the_background_by_default(memory: Memory) -> None:
    with TestClient(create_app(memory, KEYS, background_turns=3)) as client:
        r = add_alice(client)
        assert r.status_code == 202
        assert wait_job(client, "alice", r.json()["id"], A)["status"] == "succeeded"
        assert add_alice(client, background=False).status_code == 200


def test_memory_calls_do_not_block_the_event_loop(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_stats(**kwargs: Any) -> Any:
        time.sleep(0.6)
        return {"slow": True}

    monkeypatch.setattr(memory, "stats", slow_stats)
    app = create_app(memory, KEYS)

    async def run() -> tuple[float, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            started = time.perf_counter()

            async def timed(coro: Any) -> float:
                r = await coro
                assert r.status_code == 200
                return time.perf_counter() - started

            slow = asyncio.ensure_future(timed(c.get("/v1/users/alice/stats", headers=A)))
            await asyncio.sleep(0.05)
            fast = await timed(c.get("/v1/health"))
            return fast, await slow

    fast, slow = asyncio.run(run())
    assert fast < slow and slow >= 0.6


def test_users_lists_only_what_the_key_may_see(client: TestClient) -> None:
    add_alice(client)
    client.post("/v1/users/bob/memories", json={"messages": conversation()[:3]}, headers={"X-API-Key": "key-bob"})
    mine = client.get("/v1/users", headers=A).json()["users"]
    assert [u["user_id"] for u in mine] == ["alice"]
    everyone = client.get("/v1/users", headers={"Authorization": "Bearer key-admin"}).json()["users"]
    assert sorted(u["user_id"] for u in everyone) == ["alice", "bob"]


@pytest.mark.parametrize("path", ["search", "answer"])
def test_an_unknown_variant_is_the_clients_error(client: TestClient, path: str) -> None:
    add_alice(client)
    field = "query" if path == "search" else "question"
    r = client.post(f"/v1/users/alice/{path}", json={field: "cat?", "variant": "bm52"}, headers=A)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "validation_error" and "anchormem" in r.json()["error"]["message"]


def test_update_a_turn(client: TestClient) -> None:
    add_alice(client)
    turn = client.get("/v1/users/alice/memories/turns", headers=A).json()["items"][2]
    path = f"/v1/users/alice/memories/turns/{turn['id']}"
    r = client.put(path, json={"text": "Pico hates the snow, we stayed by the radiator."}, headers=A)
    assert r.status_code == 200, r.text
    assert r.json()["updated"] is True and r.json()["contexts_superseded"] == 2 and r.json()["contexts_added"] == 2
    found = client.post("/v1/users/alice/search", json={"query": "snow radiator"}, headers=A).json()
    assert turn["id"] in found["turn_ids"]
    assert client.get(f"/v1/users/alice/records/{turn['id']}", headers=A).json()["text"].startswith("Pico hates")
    missing = client.put("/v1/users/alice/memories/turns/nope", json={"text": "x"}, headers=A)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    empty = client.put(path, json={"text": " "}, headers=A)
    assert empty.status_code == 400 and empty.json()["error"]["code"] == "invalid_input"
    extra = client.put(path, json={"text": "x", "speaker": "Ben"}, headers=A)
    assert extra.status_code == 422 and extra.json()["error"]["code"] == "validation_error"
    history = client.get("/v1/users/alice/history", headers=A).json()["items"]
    assert [h["op"] for h in history] == ["add", "update"]


def test_search_covers_sub_scopes_and_takes_filters(client: TestClient, memory: Memory) -> None:
    add_user_and_coach_budget(memory)

    def sessions(**body: Any) -> list[str]:
        r = client.post("/v1/users/alice/search", json={"query": "budget", **body}, headers=A)
        assert r.status_code == 200, r.text
        return sorted(h["context"]["session"] for h in r.json()["contexts"])

    assert sessions() == ["1", "2"]
    assert sessions(include_subscopes=False) == ["1"]
    assert sessions(filters={"topic": "work"}) == ["1"]
    assert sessions(filters={"topic": "home"}) == []
    assert sessions(session="2") == ["2"]
    assert sessions(since="2024-05-01T00:00:00Z", until=1717000000) == ["2"]
    r = client.post("/v1/users/alice/search", json={"query": "budget", "agent_id": "coach"}, headers=A)
    assert r.json()["contexts"][0]["scope"] == {"user_id": "alice", "agent_id": "coach", "run_id": None}
    r = client.post("/v1/users/alice/search", json={"query": "budget", "since": "not a time"}, headers=A)
    assert r.status_code == 400 and "since" in r.json()["error"]["message"]
    r = client.post("/v1/users/alice/search", json={"query": "budget", "filters": ["topic"]}, headers=A)
    assert r.status_code == 422 and "filters" in r.json()["error"]["message"]
