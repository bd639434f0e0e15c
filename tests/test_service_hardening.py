"""The service's edges: MCP tools have the REST bounds and refuse arguments they do not declare; a
missing or corrupt keys file fails closed; store failures do not show the store's path or URL to
clients; the history keeps no labels of deleted content."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from anchormem.errors import StoreError
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing, create_key
from anchormem.server.mcp import build_server
from tests.fixtures import SESSION_1, SESSION_2, messages

TURNS = messages(SESSION_1, "1") + messages(SESSION_2, "2", stamp="2024-03-08 18:00")


def _mcp(memory: Memory, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(build_server(memory, user_id="alice")) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(run())


@pytest.mark.parametrize("name", ["k", "max_contexts"])
@pytest.mark.parametrize("value", [-5, 0, 201, 10**12])
def test_mcp_search_has_the_rest_bounds(memory: Memory, name: str, value: int) -> None:
    memory.add(TURNS, user_id="alice")
    (result,) = _mcp(memory, [("search_memory", {"query": "dog", name: value})])
    assert result.is_error and name in result.content[0].text
    assert "equal to 1" in result.content[0].text or "equal to 200" in result.content[0].text


def test_mcp_answer_has_the_rest_bound(llm_memory: Memory) -> None:
    llm_memory.add(TURNS, user_id="alice")
    (result,) = _mcp(llm_memory, [("answer_question", {"question": "dog?", "k": 10**12})])
    assert result.is_error and "equal to 200" in result.content[0].text


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("delete_memory", {"session": "1", "user_id": "bob"}),
        ("delete_memory", {"all": True, "agent_id": "x"}),
        ("search_memory", {"query": "dog", "user_id": "bob"}),
        ("memory_stats", {"run_id": "r"}),
        ("add_memory", {"messages": [{"speaker": "a", "text": "b"}], "user_id": "bob"}),
        ("add_memory", {"messages": [{"speaker": "a", "text": "b", "user_id": "bob"}]}),
        ("answer_question", {"question": "q", "variant": "bm25"}),
    ],
)
def test_mcp_tools_refuse_unknown_arguments(llm_memory: Memory, tool: str, args: dict[str, Any]) -> None:
    memory = llm_memory
    memory.add(TURNS, user_id="alice")
    memory.add(TURNS, user_id="bob")
    before = {u: memory.stats(user_id=u).turns for u in ("alice", "bob")}
    (result,) = _mcp(memory, [(tool, args)])
    unknown = next(k for k in ("user_id", "agent_id", "run_id", "variant") if k in json.dumps(args))
    assert result.is_error and unknown in result.content[0].text, result.content
    assert {u: memory.stats(user_id=u).turns for u in ("alice", "bob")} == before


def test_keys_file_that_breaks_or_goes_missing_fails_closed(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    raw, _ = create_key(path, ["alice"])
    ring = KeyRing(path)
    assert ring.authenticate(raw) is not None
    good = path.read_text()
    path.write_text('{"keys": [')  # corrupt
    assert ring.authenticate(raw) is None
    path.write_text(good)
    assert ring.authenticate(raw) is not None
    path.unlink()
    assert ring.authenticate(raw) is None
    path.write_text(json.dumps({"version": 1, "keys": "not a list"}))
    assert ring.authenticate(raw) is None
    path.write_text(good)
    assert ring.authenticate(raw) is not None


def test_store_errors_do_not_show_the_store_location(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    memory.add(TURNS, user_id="alice")
    secret = "postgresql://app:hunter2@db.internal:5432/memories"

    def broken(*_: Any, **__: Any) -> int:
        raise StoreError(f"cannot reach {secret}: the connection is closed")

    monkeypatch.setattr(memory.store, "version", broken)
    keys = KeyRing.from_raw({"key-alice": ["alice"]})
    with caplog.at_level(logging.ERROR), TestClient(create_app(memory, keys)) as client:
        r = client.get("/v1/users/alice/stats", headers={"Authorization": "Bearer key-alice"})
    assert r.status_code == 500 and r.json()["error"]["code"] == "store_error"
    assert "hunter2" not in r.text and "db.internal" not in r.text
    assert secret in caplog.text  # the operator still sees it
    (result,) = _mcp(memory, [("memory_stats", {})])
    assert result.is_error and "store_error: the store failed" in result.content[0].text
    assert "hunter2" not in result.content[0].text


def test_history_keeps_no_labels_of_deleted_content(memory: Memory) -> None:
    labels = {"session": "divorce-lawyer-call", "turn": "msg-bankruptcy-plan"}
    turns = [dict(t, session=labels["session"]) for t in messages(SESSION_1)]
    turns[0]["id"] = labels["turn"]
    memory.add(turns, user_id="u")
    memory.add(messages(SESSION_2, "2"), user_id="u")
    memory.delete(user_id="u", turn=labels["turn"])
    memory.delete(user_id="u", session=labels["session"])
    history = memory.history(user_id="u")
    assert [h.op for h in history] == ["add", "add", "delete", "delete"]
    assert [h.detail["target"] for h in history[2:]] == ["turn", "session"]
    assert history[0].detail["sessions"] == 1 and history[2].detail["turns"] == 1
    dumped = json.dumps([h.detail for h in history]) + json.dumps(list(memory.export(user_id="u")))
    for label in labels.values():
        assert label not in dumped
