"""anchormem as LangGraph's long-term memory store, offline: a graph node writes what it learns with
``store.put`` and the next run recalls it with ``store.search(query=...)``, provenance included.

Runs with no network and no API key: the store is a temporary file and the embedder the built-in
hashing one.

    pip install 'anchormem[langchain]'
    python examples/langgraph_store.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from anchormem import Memory, Settings
from anchormem.integrations.langgraph_store import AnchorMemStore


class State(TypedDict):
    user: str
    said: str
    recalled: str


def remember(state: State, *, store: BaseStore) -> dict[str, str]:
    """Keep what the user said as a memory of theirs, then recall what relates to it."""
    namespace = (state["user"], "facts")
    store.put(namespace, f"m{len(store.search(namespace)) + 1}", {"content": state["said"], "source": "chat"})
    found = store.search((state["user"],), query=state["said"], limit=1)
    return {"recalled": found[0].value["content"] if found else ""}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(env={}, store=str(Path(tmp) / "memory.db"), embed__backend="hash")
        with Memory(settings) as memory:
            store = AnchorMemStore(memory)
            builder = StateGraph(State)
            builder.add_node("remember", remember)
            builder.add_edge(START, "remember")
            builder.add_edge("remember", END)
            graph = builder.compile(store=store)
            graph.invoke({"user": "maya", "said": "My dog Pico is a scruffy terrier who loves the beach."})
            graph.invoke({"user": "maya", "said": "I start a new job as a nurse in Porto next month."})

            hit = store.search(("maya",), query="What kind of dog is Pico?", limit=1)[0]
            print(f"search: {hit.namespace} {hit.key} score {hit.score:.3f}: {hit.value['content']}")
            print(
                f"provenance: context {hit.value['anchormem']['context_id']} turns {hit.value['anchormem']['turn_ids']}"
            )
            print(f"get: {store.get(('maya', 'facts'), 'm2').value['content']}")  # type: ignore[union-attr]
            print(f"namespaces: {store.list_namespaces()}")
            store.delete(("maya", "facts"), "m1")
            left = [i.key for i in store.search(("maya",))]
            turns = memory.turns(user_id="maya", agent_id="facts")
            print(f"after delete: {left}; turns stored: {len(turns)}")


if __name__ == "__main__":
    main()
