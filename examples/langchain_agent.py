"""anchormem in LangChain and LangGraph, offline: a retriever in a chain, and memory tools in a graph.

Runs with no network and no API key: the store is a temporary file, the embedder the built-in hashing
one, and the chat model LangChain's scripted fake (swap in ``ChatOpenAI(...)`` or any chat model).

    pip install 'anchormem[langchain]' langgraph
    python examples/langchain_agent.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode, tools_condition

from anchormem import Memory, Settings
from anchormem.integrations.langchain import AnchorMemRetriever, memory_tools

CHAT = [
    {"role": "user", "content": "We finally adopted a dog from the shelter, his name is Pico.", "session": "1"},
    {"role": "assistant", "content": "Congratulations! What kind of dog is Pico?", "session": "1"},
    {"role": "user", "content": "A scruffy terrier mix. He loves the beach.", "session": "1"},
]


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(env={}, store=str(Path(tmp) / "memory.db"), embed__backend="hash")
        with Memory(settings) as memory:
            memory.add(CHAT, user_id="maya")

            # 1. A retriever: documents with provenance, for any chain.
            retriever = AnchorMemRetriever(memory=memory, user_id="maya", k=2)
            for doc in retriever.invoke("What is the name of my dog?"):
                print(f"{doc.metadata['kind']:8} {doc.metadata['id']}  score={doc.metadata['score']:.2f}")

            # 2. Tools in a LangGraph agent loop; the user comes from the run's config.
            tools = memory_tools(memory)
            model = GenericFakeChatModel(
                messages=iter(
                    [
                        AIMessage(
                            content="",
                            tool_calls=[{"name": "search_memory", "args": {"query": "dog's name"}, "id": "call-1"}],
                        ),
                        AIMessage(content="Your dog is called Pico."),
                    ]
                )
            )

            def agent(state: State) -> dict[str, list[AnyMessage]]:
                system = SystemMessage("Use search_memory before answering questions about the user.")
                return {"messages": [model.invoke([system, *state["messages"]])]}

            def remember(state: State) -> dict[str, list[AnyMessage]]:
                question, answer = state["messages"][0], state["messages"][-1]
                memory.add(
                    [
                        {"role": "user", "content": str(question.content), "session": "2"},
                        {"role": "assistant", "content": str(answer.content), "session": "2"},
                    ],
                    user_id="maya",
                )
                return {"messages": []}

            graph = StateGraph(State)
            graph.add_node("agent", agent)
            graph.add_node("tools", ToolNode(tools))
            graph.add_node("remember", remember)
            graph.add_edge(START, "agent")
            graph.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: "remember"})
            graph.add_edge("tools", "agent")
            graph.add_edge("remember", END)
            app = graph.compile()

            out = app.invoke(
                {"messages": [HumanMessage("What's my dog called?")]}, {"configurable": {"user_id": "maya"}}
            )
            tool_message = out["messages"][2]
            seen = [line for line in tool_message.content.splitlines() if line.startswith("[")]  # its message lines
            print("tool saw:", seen[0])
            print("answer:", out["messages"][-1].content)
            print("turns stored:", len(memory.turns(user_id="maya")))


if __name__ == "__main__":
    main()
