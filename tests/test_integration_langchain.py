"""The LangChain/LangGraph adapters against the real langchain-core and langgraph packages (no network:
LangChain's scripted fake chat model)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition

from anchormem.aio import AsyncMemory
from anchormem.client import AsyncClient, Client
from anchormem.errors import AnchorMemError, MissingExtraError
from anchormem.integrations.langchain import AnchorMemRetriever, memory_tools, to_documents
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, SESSION_2, messages
from tests.live_server import LiveServer, serve

QUERY = "What is the name of Ana's dog?"


@pytest.fixture
def filled(memory: Memory) -> Memory:
    memory.add(messages(SESSION_1, session="1"), user_id="alice")
    memory.add(messages(SESSION_2, session="2"), user_id="alice")
    # Ana says again where Pico likes to walk: an offline event joins two messages apart
    again = [("Ana", "Pico loves the beach; we walked along the coast this morning.")]
    memory.add(messages(again, session="3"), user_id="alice")
    return memory


@pytest.fixture
def server(filled: Memory) -> Iterator[LiveServer]:
    with serve(filled) as live:
        yield live


def test_retriever_returns_contexts_and_events_with_provenance(filled: Memory) -> None:
    query = "What did Ana name her dog?"  # about the past: two contexts by score, and an event adds to them
    retriever = AnchorMemRetriever(memory=filled, user_id="alice", k=2)
    docs = retriever.invoke(query)
    result = filled.search(query, user_id="alice", k=2)
    assert all(isinstance(d, Document) for d in docs)
    assert [d.id for d in docs] == [h.context.id for h in result.contexts] + [h.event.id for h in result.events]
    first, hit = docs[0], result.contexts[0]
    assert first.page_content == hit.context.text and "Pico" in first.page_content
    assert first.metadata["kind"] == "context" and first.metadata["user_id"] == "alice"
    assert first.metadata["turn_ids"] == list(hit.context.turn_ids)
    assert first.metadata["session"] == hit.context.session and first.metadata["score"] == hit.score
    assert [a["id"] for a in first.metadata["anchors"]] == [a.fact.id for a in hit.anchors]
    assert first.metadata["latest"] == hit.latest and first.metadata["newer"] == list(hit.newer)
    assert first.metadata["relevance"] == hit.relevance and first.metadata["adjustments"] == dict(hit.adjustments)
    events = [d for d in docs if d.metadata["kind"] == "event"]
    assert events and all(d.metadata["fact_ids"] for d in events)


def test_retriever_async_over_async_memory_and_both_clients(filled: Memory, server: LiveServer) -> None:
    expected = to_documents(filled.search(QUERY, user_id="alice"), scope={"user_id": "alice"})

    async def run() -> None:
        async_memory = AnchorMemRetriever(memory=AsyncMemory.wrap(filled), user_id="alice")
        assert await async_memory.ainvoke(QUERY) == expected
        assert async_memory.invoke(QUERY) == expected  # the wrapped facade answers blocking calls
        async with AsyncClient(server.url, api_key=server.admin_key) as client:
            remote = AnchorMemRetriever(memory=client, user_id="alice")
            assert await remote.ainvoke(QUERY) == expected
            with pytest.raises(AnchorMemError, match="async-only"):
                remote.invoke(QUERY)

    asyncio.run(run())
    with Client(server.url, api_key=server.admin_key) as client:
        assert AnchorMemRetriever(memory=client, user_id="alice").invoke(QUERY) == expected


def tool_call(name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": f"call-{name}", "name": name, "args": args}


def test_tools_search_and_add_for_the_configured_user(filled: Memory) -> None:
    search, add = memory_tools(filled)
    config: Any = {"configurable": {"user_id": "alice"}}
    message = search.invoke(tool_call("search_memory", query=QUERY), config=config)
    assert isinstance(message, ToolMessage)
    result = filled.search(QUERY, user_id="alice")
    assert f"[{result.contexts[0].context.turn_ids[0]}]" in message.content and "Pico" in message.content
    assert message.artifact["turn_ids"] == result.turn_ids

    stored = asyncio.run(add.ainvoke({"content": "I moved to Lisbon in May."}, config=config))
    assert stored == "stored 1 new turn(s)"
    assert filled.turns(user_id="alice")[-1].text == "I moved to Lisbon in May."

    with pytest.raises(AnchorMemError, match="no user for the memory tools"):
        search.invoke({"query": QUERY})
    fixed, _ = memory_tools(filled, user_id="bob")
    assert fixed.invoke({"query": QUERY}) == "No memories found."  # a user with no memory yet
    assert AnchorMemRetriever(memory=filled, user_id="bob").invoke(QUERY) == []


def test_tools_run_in_a_langgraph_agent_loop(filled: Memory) -> None:
    class State(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]

    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(content="", tool_calls=[{"name": "search_memory", "args": {"query": QUERY}, "id": "c1"}]),
                AIMessage(content="Pico."),
            ]
        )
    )
    graph = StateGraph(State)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode(memory_tools(filled)))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "agent")
    out = graph.compile().invoke({"messages": [HumanMessage(QUERY)]}, {"configurable": {"user_id": "alice"}})
    tool_messages = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 1 and "his name is Pico" in tool_messages[0].content
    assert out["messages"][-1].content == "Pico."


def test_a_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m.split(".")[0] == "langchain_core"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "langchain_core", None)  # import fails as if not installed
    monkeypatch.delitem(sys.modules, "anchormem.integrations.langchain")
    with pytest.raises(MissingExtraError, match=r"pip install 'anchormem\[langchain\]'"):
        importlib.import_module("anchormem.integrations.langchain")
