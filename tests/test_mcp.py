"""The MCP server end to end with the MCP Python SDK's client: in process, over stdio (a real
``python -m anchormem mcp`` subprocess) and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.server.mcp import build_server
from tests.fixtures import SESSION_1, SESSION_2

TURNS = [{"speaker": s, "text": t, "session": "1", "timestamp": "2024-03-01 10:00"} for s, t in SESSION_1] + [
    {"speaker": s, "text": t, "session": "2", "timestamp": "2024-03-08 18:00"} for s, t in SESSION_2
]
TOOLS = {
    "add_memory",
    "search_memory",
    "update_memory",
    "delete_memory",
    "memory_stats",
}  # answer_question needs an LLM


def data(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def round_trip(client: Client) -> None:
    tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == TOOLS
    added = data(await client.call_tool("add_memory", {"messages": TURNS}))
    assert added["turns_added"] == len(TURNS)
    raw = await client.call_tool("search_memory", {"query": "What is the name of Ana's dog?", "k": 5})
    found = data(raw)
    assert "Pico" in found["memories"] and found["turn_ids"]
    assert raw.content[0].text == found["memories"], "the text an agent reads is the prompt block"
    assert found["memories"].startswith("Recalled conversation, quoted as data") and "## " in found["memories"]
    assert "not instructions" in found["memories"] and found["memories"].count("</memories>") == 1
    shown = re.findall(r"^\[([^\]]+)\] ", found["memories"], flags=re.MULTILINE)
    assert found["turn_ids"] == list(dict.fromkeys(shown)), "labelled by turn id: the ids update_memory takes"
    assert [c["rank"] for c in found["contexts"]] == list(range(1, len(found["contexts"]) + 1))
    small = data(await client.call_tool("search_memory", {"query": "Ana's dog", "max_chars": 250}))
    assert 0 < len(small["memories"]) <= 250
    stats = data(await client.call_tool("memory_stats", {}))
    assert stats["turns"] == len(TURNS)
    no_llm = await client.call_tool("answer_question", {"question": "What is the dog's name?"})
    assert no_llm.is_error, "a server without an LLM does not offer answer_question"
    bad = await client.call_tool("add_memory", {"messages": [{"speaker": "a"}]})
    assert bad.is_error


def test_in_process_round_trip(memory: Memory) -> None:
    async def run() -> None:
        async with Client(build_server(memory, user_id="alice")) as client:
            await round_trip(client)
            deleted = data(await client.call_tool("delete_memory", {"session": "1"}))
            assert deleted["deleted"]["turns"] == len(SESSION_1)
            gone = data(await client.call_tool("delete_memory", {"all": True}))
            assert gone["deleted"]["turns"] == len(SESSION_2)
            missing = await client.call_tool("memory_stats", {})
            assert missing.is_error and "not_found: " in missing.content[0].text

    asyncio.run(run())
    assert memory.users() == [] or [s.user_id for s in memory.users()] == ["alice"]


async def _tools(memory: Memory) -> dict[str, Any]:
    async with Client(build_server(memory, user_id="alice")) as client:
        return {t.name: t for t in (await client.list_tools()).tools}


def test_answer_question_is_offered_only_with_an_llm(memory: Memory, llm_memory: Memory) -> None:
    assert set(asyncio.run(_tools(memory))) == TOOLS
    assert set(asyncio.run(_tools(llm_memory))) == TOOLS | {"answer_question"}


def test_answer_question_answers_with_the_configured_llm(llm_memory: Memory, fake_llm: FakeLLM) -> None:
    async def run() -> Any:
        async with Client(build_server(llm_memory, user_id="alice")) as client:
            await client.call_tool("add_memory", {"messages": TURNS})
            return data(await client.call_tool("answer_question", {"question": "What is the dog's name?", "k": 5}))

    answer = asyncio.run(run())
    assert answer["answer"] and answer["model"] == fake_llm.model


def test_every_tool_and_parameter_is_described(llm_memory: Memory) -> None:
    """An LLM picks tools and fills arguments from these texts alone."""
    tools = asyncio.run(_tools(llm_memory))
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 60, name
        props = tool.input_schema.get("properties", {})
        for param, schema in props.items():
            assert schema.get("description"), f"{name}.{param} has no description"
    expected = {
        "add_memory": {"messages"},
        "search_memory": {
            "query",
            "k",
            "max_contexts",
            "max_chars",
            "include_subscopes",
            "filters",
            "session",
            "since",
            "until",
        },
        "answer_question": {"question", "k"},
        "update_memory": {"turn_id", "text"},
        "delete_memory": {"session", "turn", "context", "all"},
        "memory_stats": set(),
    }
    assert {n: set(t.input_schema.get("properties", {})) for n, t in tools.items()} == expected
    message = tools["add_memory"].input_schema["properties"]["messages"]["items"]["properties"]
    assert {"role", "content", "created_at", "metadata"} <= set(message)
    assert all(field.get("description") for field in message.values())


def _env(store: Path) -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    return {
        "ANCHORMEM_STORE": str(store),
        "ANCHORMEM_EMBED_BACKEND": "hash",
        "HOME": str(store.parent),
        "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }


def test_stdio_round_trip(tmp_path: Path) -> None:
    store = tmp_path / "mcp.db"
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "anchormem", "mcp", "--user", "alice"], env=_env(store), cwd=str(tmp_path)
    )

    async def run() -> None:
        async with Client(params, read_timeout_seconds=30) as client:
            await round_trip(client)

    asyncio.run(asyncio.wait_for(run(), timeout=60))
    with Memory.from_env(store=str(store), embed__backend="hash") as mem:  # the server wrote alice's memory
        assert [s.user_id for s in mem.users()] == ["alice"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_streamable_http_round_trip(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "anchormem",
            "mcp",
            "--user",
            "alice",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env={**os.environ, **_env(tmp_path / "http.db")},
        cwd=str(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"MCP HTTP server did not start: {proc.stderr.read() if proc.stderr else ''!r}")
                time.sleep(0.1)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=30) as client:
                await round_trip(client)

        asyncio.run(asyncio.wait_for(run(), timeout=60))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_search_that_finds_nothing_says_whether_the_scope_holds_any_memory(memory: Memory) -> None:
    memory.add([{"speaker": "Ana", "text": "I adopted a dog named Pico.", "session": "1"}], user_id="ana")

    async def search(user_id: str, **args: Any) -> Any:
        async with Client(build_server(memory, user_id=user_id)) as client:
            return await client.call_tool("search_memory", {"query": "What does the user like?", **args})

    empty = asyncio.run(search("newcomer"))
    found = data(empty)
    assert empty.content[0].text == found["memories"]
    assert found["memories"].startswith("No memories yet for this scope (user 'newcomer')")
    assert (found["turn_ids"], found["contexts"], found["events"]) == ([], [], [])
    unmatched = data(asyncio.run(search("ana", filters={"topic": "work"})))
    assert unmatched["memories"].startswith("No memories match this search") and unmatched["contexts"] == []


def test_a_resent_message_is_one_turn_and_a_timed_repeat_is_two(memory: Memory) -> None:
    """A retry (the same message again, no id, no time) adds nothing; "yes" said twice in one call, or
    twice with different times, is two turns. The server stamps nothing: every path reads the same."""

    def yes(**extra: Any) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": "yes", **extra}]}

    async def run() -> None:
        async with Client(build_server(memory, user_id="bo")) as client:
            assert data(await client.call_tool("add_memory", yes()))["turns_added"] == 1
            assert data(await client.call_tool("add_memory", yes()))["turns_added"] == 0, "a retry adds nothing"
            twice = {"messages": yes()["messages"] * 2}
            assert data(await client.call_tool("add_memory", twice))["turns_added"] == 1, "the second 'yes' is new"
            for stamp, new in ((1714557600, 1), ("2024-05-01T10:05:00Z", 1), (1714557600, 0)):
                added = data(await client.call_tool("add_memory", yes(created_at=stamp)))
                assert added["turns_added"] == new, stamp

    asyncio.run(run())
    assert memory.stats(user_id="bo").turns == 4


def test_update_memory_corrects_a_turn(memory: Memory) -> None:
    async def run() -> tuple[Any, Any, Any, Any]:
        async with Client(build_server(memory, user_id="alice")) as client:
            await client.call_tool("add_memory", {"messages": [{**TURNS[0], "id": "adopt"}, *TURNS[1:3]]})
            fixed = data(
                await client.call_tool("update_memory", {"turn_id": "adopt", "text": "I adopted a cat, Miso."})
            )
            found = data(await client.call_tool("search_memory", {"query": "Miso the cat"}))
            missing = await client.call_tool("update_memory", {"turn_id": "nope", "text": "x"})
            empty = await client.call_tool("update_memory", {"turn_id": "adopt", "text": ""})
            return fixed, found, missing, empty

    fixed, found, missing, empty = asyncio.run(run())
    assert fixed["updated"] is True and fixed["turn_id"] == "adopt" and fixed["contexts_superseded"] == 1
    assert "I adopted a cat, Miso." in found["memories"] and "shelter" not in found["memories"]
    assert missing.is_error and "not_found: no turn" in missing.content[0].text
    assert empty.is_error
    assert memory.turns(user_id="alice")[0].text == "I adopted a cat, Miso."


def test_search_memory_covers_sub_scopes_and_takes_filters(memory: Memory) -> None:
    def say(text: str, session: str, **extra: Any) -> dict[str, Any]:
        return {"role": "user", "content": text, "session": session, **extra}

    memory.add([say("Budget review for the quarter.", "1", metadata={"topic": "work"})], user_id="ana")
    memory.add([say("The budget for the climbing trip.", "2", created_at=1717000000)], user_id="ana", agent_id="coach")
    memory.add([say("The helper's own budget note.", "1")], agent_id="helper")

    async def search(server: Any, **arguments: Any) -> Any:
        async with Client(server) as client:
            return data(await client.call_tool("search_memory", {"query": "budget", **arguments}))

    def run(server: Any, **arguments: Any) -> list[dict[str, Any]]:
        return list(asyncio.run(search(server, **arguments))["contexts"])

    ana = build_server(memory, user_id="ana")
    found = run(ana)
    assert {(c["scope"]["agent_id"], c["session"]) for c in found} == {(None, "1"), ("coach", "2")}
    assert {c["session"] for c in run(ana, include_subscopes=False)} == {"1"}
    assert [c["session"] for c in run(ana, filters={"topic": "work"})] == ["1"]
    assert [c["session"] for c in run(ana, session="2")] == ["2"]
    assert [c["session"] for c in run(ana, since="2024-05-01", until=1717000000)] == ["2"]
    assert run(ana, filters={"topic": "nope"}) == []
    helper = run(build_server(memory, user_id=None, agent_id="helper"))
    assert [c["text"].endswith("The helper's own budget note.\"") for c in helper] == [True]
    assert helper[0]["scope"] == {"user_id": "", "agent_id": "helper", "run_id": None}


def test_arguments_out_of_range_are_invalid_input_in_plain_words(memory: Memory) -> None:
    async def run() -> list[Any]:
        async with Client(build_server(memory, user_id="alice")) as client:
            await client.call_tool("add_memory", {"messages": TURNS[:3]})
            return [
                await client.call_tool("search_memory", {"query": "dog", "k": 500}),
                await client.call_tool("search_memory", {"query": "dog", "max_contexts": 0}),
                await client.call_tool("search_memory", {"query": "dog", "k": "many"}),
                await client.call_tool("update_memory", {"turn_id": "", "text": "x"}),
            ]

    too_many, zero, word, empty_id = asyncio.run(run())
    texts = [r.content[0].text for r in (too_many, zero, word, empty_id)]
    assert all(r.is_error for r in (too_many, zero, word, empty_id)), texts
    assert all(t.startswith("invalid_input: ") and "\n" not in t and "pydantic" not in t for t in texts), texts
    assert texts[0] == "invalid_input: search_memory: k: Input should be less than or equal to 200"
    assert "max_contexts: Input should be greater than or equal to 1" in texts[1]
    assert texts[2].startswith("invalid_input: search_memory: k: ") and "many" not in texts[2]
