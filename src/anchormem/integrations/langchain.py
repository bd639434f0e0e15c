"""LangChain and LangGraph: anchormem as a retriever and as tools (``pip install 'anchormem[langchain]'``).

- :class:`AnchorMemRetriever` is a ``BaseRetriever``: ``retriever.invoke(query)`` returns one
  ``Document`` per retrieved context (the original 3-turn window, with its ``DATE:`` line) and per
  event, with provenance in ``metadata`` (``kind``, ``id``, ``score``, ``turn_ids``, ``session``,
  ``date``, the anchor facts that led to it, ...). Use it in any chain or graph node.
- :func:`memory_tools` gives ``search_memory`` and ``add_memory`` tools for a tool-calling agent
  (LangGraph's ``ToolNode``, ``create_agent``, ...). The user whose memory they touch is fixed when
  they are made, or read per call from ``config["configurable"]["user_id"]``, as LangGraph passes it;
  the model never chooses it.

LangGraph's ``BaseStore`` is :class:`anchormem.integrations.langgraph_store.AnchorMemStore`: each item is
one message of the memory, its value kept beside it, and ``search(query=...)`` is an anchormem search.

Every function here works over a ``Memory``, ``AsyncMemory``, ``Client`` or ``AsyncClient``; the
async-only ones need the async calls (``ainvoke``).
"""

from __future__ import annotations

from typing import Any, Unpack

from anchormem._util.extras import requires_extra
from anchormem.errors import InputError
from anchormem.integrations.binding import Binding, MemoryLike, SearchOptions, as_text
from anchormem.integrations.tool_text import ADD_DESCRIPTION, SEARCH_DESCRIPTION
from anchormem.model import ContextHit, EventHit, SearchResult
from anchormem.wire.serialize import to_jsonable

with requires_extra("langchain", "anchormem.integrations.langchain"):
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, StructuredTool
    from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AnchorMemRetriever", "memory_tools", "to_documents"]


def to_documents(result: SearchResult, *, scope: dict[str, Any] | None = None) -> list[Document]:
    """A search result as LangChain documents: each context, then each event, in the result's order,
    with provenance in ``metadata`` (JSON-safe)."""
    base = {k: v for k, v in (scope or {}).items() if v is not None}
    contexts = [
        _document(base, "context", h.context.id, h.score, h.context.text, _context_fields(h)) for h in result.contexts
    ]
    events = [_document(base, "event", h.event.id, h.score, h.event.text, _event_fields(h)) for h in result.events]
    return contexts + events


def _document(
    base: dict[str, Any], kind: str, record_id: str, score: float, text: str, fields: dict[str, Any]
) -> Document:
    """One retrieved record as a document: the scope, what it is, its id and score, then ``fields``."""
    meta = {**base, "kind": kind, "id": record_id, "score": score, **fields}
    return Document(page_content=text, metadata=meta, id=record_id)


def _context_fields(hit: ContextHit) -> dict[str, Any]:
    """A context's provenance: where it is, the anchors that led to it, its rank and marks."""
    ctx = hit.context
    return {
        "session": ctx.session,
        "date": ctx.date,
        "turn_ids": list(ctx.turn_ids),
        "offsets": [list(o) for o in ctx.offsets],  # a passage's place in its message; [] for whole messages
        "anchors": [{"id": a.fact.id, "text": a.fact.text, "score": a.score} for a in hit.anchors],
        "via_events": list(hit.via_events),
        "rank": hit.rank,
        "relevance": hit.relevance,
        "adjustments": dict(hit.adjustments),
        "latest": hit.latest,  # compared with the returned contexts on the same subject (None: not compared)
        "newer": list(hit.newer),
    }


def _event_fields(hit: EventHit) -> dict[str, Any]:
    """An event's provenance: the contexts and facts it ties, the supersessions it found."""
    ev = hit.event
    return {
        "context_ids": list(hit.context_ids),
        "fact_ids": list(ev.fact_ids),
        "supersedes": [list(link) for link in ev.supersedes],  # [newer fact id, older fact id, kind]
    }


class AnchorMemRetriever(BaseRetriever):
    """A user's memory as a LangChain retriever.

    ``AnchorMemRetriever(memory=Memory(...), user_id="maya", k=5)``; ``search_options`` go to
    ``search`` as given (``max_contexts``, ``variant``, filters, ...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(description="a Memory, AsyncMemory, Client or AsyncClient")
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    k: int | None = None
    search_options: dict[str, Any] = Field(default_factory=dict)

    @property
    def binding(self) -> Binding:
        return Binding(self.memory, self.user_id, self.agent_id, self.run_id, self.k)

    def _scope(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return to_documents(self.binding.search(query, **self.search_options), scope=self._scope())

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return to_documents(await self.binding.asearch(query, **self.search_options), scope=self._scope())


class SearchArgs(BaseModel):
    query: str = Field(description="what to look for, as a question or a few words (e.g. 'name of Ana's dog')")


class AddArgs(BaseModel):
    content: str = Field(description="the statement to remember, in the user's own words where possible")


def memory_tools(
    memory: MemoryLike, *, user_id: str | None = None, speaker: str = "user", **scope: Unpack[SearchOptions]
) -> list[BaseTool]:
    """``search_memory`` and ``add_memory`` tools over ``memory`` (a ``Memory``, ``AsyncMemory``,
    ``Client`` or ``AsyncClient``).

    ``user_id`` fixes whose memory they touch; left out, each call reads it from
    ``config["configurable"]["user_id"]`` (LangGraph: ``graph.invoke(..., {"configurable":
    {"user_id": ...}})``). ``agent_id``, ``run_id`` and ``k``: see
    :class:`~anchormem.integrations.binding.SearchOptions`. ``speaker`` names the author of remembered
    statements. ``search_memory`` also returns the full result as its artifact (JSON) for code that
    wants the provenance.
    """
    base = Binding(memory, user_id or "-", **scope)

    def bound(config: RunnableConfig | None) -> Binding:
        if user_id is not None:
            return base
        chosen = ((config or {}).get("configurable") or {}).get("user_id")
        if not isinstance(chosen, str) or not chosen:
            raise InputError(
                "no user for the memory tools: make them with user_id=... or pass "
                "config={'configurable': {'user_id': ...}}"
            )
        return base.scoped(chosen)

    def search(query: str, config: RunnableConfig) -> tuple[str, Any]:
        result = bound(config).search(query)
        return as_text(result), to_jsonable(result)

    async def asearch(query: str, config: RunnableConfig) -> tuple[str, Any]:
        result = await bound(config).asearch(query)
        return as_text(result), to_jsonable(result)

    def message(content: str) -> list[dict[str, Any]]:
        return [{"role": speaker, "content": content}]

    def add(content: str, config: RunnableConfig) -> str:
        report = bound(config).add(message(content))
        return f"stored {report.turns_added} new turn(s)"

    async def aadd(content: str, config: RunnableConfig) -> str:
        report = await bound(config).aadd(message(content))
        return f"stored {report.turns_added} new turn(s)"

    return [
        StructuredTool.from_function(
            func=search,
            coroutine=asearch,
            name="search_memory",
            description=SEARCH_DESCRIPTION,
            args_schema=SearchArgs,
            response_format="content_and_artifact",
        ),
        StructuredTool.from_function(
            func=add, coroutine=aadd, name="add_memory", description=ADD_DESCRIPTION, args_schema=AddArgs
        ),
    ]
