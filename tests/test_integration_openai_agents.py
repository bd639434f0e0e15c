"""The OpenAI Agents SDK adapters against the real openai-agents package: tools, session and recall in
real ``Runner.run`` calls, the model being the SDK's own chat-completions model talking to a scripted
in-process endpoint (no network)."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession, set_tracing_disabled
from agents.tool_context import ToolContext

from anchormem.aio import AsyncMemory
from anchormem.client import AsyncClient
from anchormem.errors import InputError, MissingExtraError
from anchormem.ingest.messages import parse_messages
from anchormem.integrations.openai_agents import (
    RECALL_HEADER,
    AnchorMemSession,
    memory_tools,
    message_text,
    recall,
    resolve_user,
)
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, messages
from tests.live_server import LiveServer, serve
from tests.scripted_openai import ScriptedChat, say, tool_call

QUERY = "What is the name of Ana's dog?"


@pytest.fixture(autouse=True)
def _no_tracing() -> Iterator[None]:
    set_tracing_disabled(True)  # the SDK would otherwise export traces over the network
    yield


@pytest.fixture
def filled(memory: Memory) -> Memory:
    memory.add(messages(SESSION_1, session="1"), user_id="alice")
    return memory


@pytest.fixture
def server(filled: Memory) -> Iterator[LiveServer]:
    with serve(filled) as live:
        yield live


@dataclass
class UserContext:
    user_id: str


def test_an_agent_calls_search_memory_for_the_user_in_its_context(filled: Memory) -> None:
    chat = ScriptedChat(tool_call("search_memory", query=QUERY), say("Pico."))
    agent = Agent(name="assistant", instructions="Be brief.", model=chat.model(), tools=memory_tools(filled))
    result = asyncio.run(Runner.run(agent, QUERY, context=UserContext("alice")))
    assert result.final_output == "Pico."
    tools = {t["function"]["name"]: t["function"] for t in chat.requests[0]["tools"]}
    assert set(tools) == {"search_memory", "add_memory"}
    assert tools["search_memory"]["parameters"]["required"] == ["query"]
    tool_answer = chat.requests[1]["messages"][-1]
    assert tool_answer["role"] == "tool" and "his name is Pico" in tool_answer["content"]
    turn_id = filled.search(QUERY, user_id="alice").contexts[0].context.turn_ids[0]
    assert f"[{turn_id}]" in tool_answer["content"]


def invoke(tool: Any, context: Any, **args: Any) -> Any:
    raw = json.dumps(args)
    ctx = ToolContext(context=context, tool_name=tool.name, tool_call_id="c1", tool_arguments=raw)
    return asyncio.run(tool.on_invoke_tool(ctx, raw))


def test_tools_add_and_search_for_the_resolved_user(filled: Memory) -> None:
    search, add = memory_tools(filled, user_id=lambda ctx: ctx["who"])
    assert invoke(add, {"who": "bob"}, content="I keep bees on the roof.") == "stored 1 new turn(s)"
    assert [t.text for t in filled.turns(user_id="bob")] == ["I keep bees on the roof."]
    assert "bees" in invoke(search, {"who": "bob"}, query="bees")
    assert invoke(search, {"who": "carol"}, query="bees") == "No memories found."  # no memory yet
    assert invoke(search, {"who": "bob"}, query=" ").startswith("memory search failed: the tool argument 'query'")
    with pytest.raises(InputError, match="no user for anchormem"):
        invoke(memory_tools(filled)[0], None, query="bees")


def test_the_user_comes_from_the_tools_or_the_run_context() -> None:
    assert resolve_user("fixed", {"user_id": "other"}) == "fixed"
    assert resolve_user(None, {"user_id": "dict"}) == "dict"
    assert resolve_user(None, UserContext("attribute")) == "attribute"
    assert resolve_user(lambda ctx: ctx.user_id.upper(), UserContext("x")) == "X"
    with pytest.raises(InputError, match="no user for anchormem"):
        resolve_user(None, None)


def test_message_text_keeps_text_parts_and_skips_other_items() -> None:
    assert message_text({"role": "user", "content": "hi"}) == "hi"
    parts = [{"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": "x"}]
    assert message_text({"role": "user", "content": parts}) == "look"
    assert message_text({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]})
    assert message_text({"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c"}) is None
    assert message_text({"role": "system", "content": "rules"}) is None


def test_session_keeps_the_items_and_mirrors_messages_into_memory(memory: Memory) -> None:
    chat = ScriptedChat(tool_call("search_memory", query="dog"), say("No memories yet."), say("Pico, noted."))
    agent = Agent(name="assistant", model=chat.model(), tools=memory_tools(memory, user_id="dana"))
    session = AnchorMemSession("chat-1", memory, user_id="dana", names={"user": "Dana", "assistant": "Coach"})

    async def run() -> list[Any]:
        await Runner.run(agent, "Do you know my dog's name?", session=session)
        await Runner.run(agent, "It is Pico.", session=session)
        return await session.get_items()

    items = asyncio.run(run())
    kinds = [i.get("type", "message") for i in items]
    assert kinds == ["message", "function_call", "function_call_output", "message", "message", "message"]
    turns = memory.turns(user_id="dana")
    assert [(t.speaker, t.text) for t in turns] == [
        ("Dana", "Do you know my dog's name?"),
        ("Coach", "No memories yet."),
        ("Dana", "It is Pico."),
        ("Coach", "Pico, noted."),
    ]
    assert {t.session for t in turns} == {"chat-1"} and all(t.timestamp for t in turns)
    assert chat.requests[2]["messages"][0]["content"] == "Do you know my dog's name?"  # history replayed

    popped = asyncio.run(session.pop_item())
    assert message_text(popped) == "Pico, noted."
    assert [t.text for t in memory.turns(user_id="dana")][-1] == "It is Pico."
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    assert len(memory.turns(user_id="dana")) == 3  # long-term memory stays unless asked


def test_session_items_added_again_are_stored_once_under_ids_from_their_content(memory: Memory) -> None:
    items = [
        {"role": "user", "content": "I moved to Lyon."},
        {"type": "function_call", "name": "search_memory", "arguments": "{}", "call_id": "c1"},
        {"role": "assistant", "content": "Noted.", "created_at": "2024-05-01T09:00:00Z"},
    ]
    session = AnchorMemSession("chat-3", memory, user_id="fay", agent_id="coach")
    asyncio.run(session.add_items(items))
    asyncio.run(session.add_items(items))  # a re-sent window: the SDK's history holds it twice, memory once
    assert len(asyncio.run(session.get_items())) == 6
    turns = memory.turns(user_id="fay", agent_id="coach")
    assert [t.text for t in turns] == ["I moved to Lyon.", "Noted."]
    as_messages = [
        {"role": "user", "content": "I moved to Lyon.", "session": "chat-3"},
        {"role": "assistant", "content": "Noted.", "session": "chat-3", "created_at": "2024-05-01T09:00:00Z"},
    ]
    assert [t.id for t in turns] == [t.id for t in parse_messages(as_messages)], "the normaliser's content ids"
    assert turns[1].time_given == "2024-05-01T09:00:00Z", "the item's own time"
    assert turns[0].time_given, "no time of its own: the time it was added"

    with pytest.raises(TypeError, match="unexpected keyword argument 'k'"):
        AnchorMemSession("chat-3", memory, user_id="fay", k=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'top'"):
        memory_tools(memory, user_id="fay", top=3)

    again = AnchorMemSession("chat-3", memory, user_id="fay", agent_id="coach")  # a fresh, empty history
    asyncio.run(again.add_items(items[2:]))
    assert len(memory.turns(user_id="fay", agent_id="coach")) == 2
    assert message_text(asyncio.run(again.pop_item())) == "Noted."
    assert [t.text for t in memory.turns(user_id="fay", agent_id="coach")] == ["I moved to Lyon."]


def test_session_over_the_async_client_and_forgetting_on_clear(server: LiveServer, filled: Memory) -> None:
    async def run() -> None:
        async with AsyncClient(server.url, api_key=server.admin_key) as client:
            session = AnchorMemSession(
                "chat-9", client, user_id="erin", history=SQLiteSession("chat-9"), forget_on_clear=True
            )
            await session.add_items([{"role": "user", "content": "My sister lives in Porto."}])
            await session.add_items([{"role": "assistant", "content": [{"type": "output_text", "text": "Nice!"}]}])
            assert [t.text for t in await client.turns(user_id="erin")] == ["My sister lives in Porto.", "Nice!"]
            assert message_text(await session.pop_item()) == "Nice!"
            assert [t.text for t in await client.turns(user_id="erin")] == ["My sister lives in Porto."]
            await session.clear_session()
        assert filled.stats(user_id="erin").turns == 0

    asyncio.run(run())


def test_recall_adds_memories_to_the_instructions(filled: Memory) -> None:
    chat = ScriptedChat(say("Pico."), say("I don't know yet."))
    agent = Agent(name="assistant", instructions="Be brief.", model=chat.model())
    config = RunConfig(call_model_input_filter=recall(AsyncMemory.wrap(filled)))
    asyncio.run(Runner.run(agent, QUERY, context={"user_id": "alice"}, run_config=config))
    system = chat.requests[0]["messages"][0]["content"]
    assert system.startswith("Be brief.\n\n" + RECALL_HEADER) and "his name is Pico" in system

    asyncio.run(Runner.run(agent, QUERY, context={"user_id": "nobody"}, run_config=config))
    assert chat.requests[1]["messages"][0]["content"] == "Be brief."


def test_session_recall_leaves_out_its_own_session(filled: Memory) -> None:
    session = AnchorMemSession("1", filled, user_id="alice")  # the fixture's conversation is session "1"
    chat = ScriptedChat(say("?"))
    agent = Agent(name="assistant", instructions="Be brief.", model=chat.model())
    asyncio.run(Runner.run(agent, QUERY, run_config=RunConfig(call_model_input_filter=session.recall())))
    assert chat.requests[0]["messages"][0]["content"].count("DATE:") == 0


def test_a_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "agents"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "agents", None)  # import fails as if not installed
    monkeypatch.delitem(sys.modules, "anchormem.integrations.openai_agents")
    with pytest.raises(MissingExtraError, match=r"pip install 'anchormem\[openai-agents\]'"):
        importlib.import_module("anchormem.integrations.openai_agents")
