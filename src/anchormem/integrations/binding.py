"""A memory bound to one scope, for the framework adapters: search and add, blocking or awaitable,
whichever of ``Memory``, ``AsyncMemory``, ``Client`` or ``AsyncClient`` is behind it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from anchormem.errors import ConfigError, NotFoundError
from anchormem.model import IngestReport, SearchResult
from anchormem.render.prompt_block import render_block

if TYPE_CHECKING:
    from anchormem.aio import AsyncMemory
    from anchormem.client import AsyncClient, Client
    from anchormem.memory import Memory

MemoryLike: TypeAlias = "Memory | AsyncMemory | Client | AsyncClient"
"""What the adapters take: a memory in this process (blocking or async) or a client of a served one."""


class ScopeOptions(TypedDict, total=False):
    """The keywords every adapter takes to narrow the user's memory: an agent, and a run under it."""

    agent_id: str | None
    run_id: str | None


class SearchOptions(ScopeOptions, total=False):
    """:class:`ScopeOptions` and ``k``, how many memories a search considers (default: the memory's
    setting)."""

    k: int | None


def _is_async(method: Any) -> bool:
    return inspect.iscoroutinefunction(method)


@dataclass(frozen=True)
class Binding:
    """``memory`` (a ``Memory``, ``AsyncMemory``, ``Client`` or ``AsyncClient``) bound to one scope."""

    memory: Any
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None
    k: int | None = None

    def scoped(self, user_id: str | None = None) -> Binding:
        """The same memory for another user (same agent and run)."""
        if user_id is None or user_id == self.user_id:
            return self
        return Binding(self.memory, user_id, self.agent_id, self.run_id, self.k)

    def _scope(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}

    def _sync_memory(self, what: str) -> Any:
        if not _is_async(getattr(self.memory, what)):
            return self.memory
        sync = getattr(self.memory, "sync", None)  # AsyncMemory wraps a Memory
        if sync is not None:
            return sync
        raise ConfigError(
            f"{type(self.memory).__name__} is async-only: use the framework's async call (ainvoke, arun, ...) "
            "or give a Client"
        )

    def search(self, query: str, **options: Any) -> SearchResult:
        """The scope's memories for ``query``; none (not an error) for a scope with no memory yet."""
        try:
            result: SearchResult = self._sync_memory("search").search(query, **self._scope(), k=self.k, **options)
        except NotFoundError:
            return SearchResult(query=query, contexts=(), events=())
        return result

    async def asearch(self, query: str, **options: Any) -> SearchResult:
        if not _is_async(self.memory.search):
            return await asyncio.to_thread(self.search, query, **options)
        try:
            result: SearchResult = await self.memory.search(query, **self._scope(), k=self.k, **options)
        except NotFoundError:
            return SearchResult(query=query, contexts=(), events=())
        return result

    def add(self, messages: Sequence[Mapping[str, Any]]) -> IngestReport:
        report: IngestReport = self._sync_memory("add").add(list(messages), **self._scope())
        return report

    async def aadd(self, messages: Sequence[Mapping[str, Any]]) -> IngestReport:
        if _is_async(self.memory.add):
            report: IngestReport = await self.memory.add(list(messages), **self._scope())
            return report
        return await asyncio.to_thread(self.add, messages)

    def delete(self, **target: Any) -> None:
        self._sync_memory("delete").delete(**self._scope(), **target)

    async def adelete(self, **target: Any) -> None:
        if _is_async(self.memory.delete):
            await self.memory.delete(**self._scope(), **target)
        else:
            await asyncio.to_thread(self.delete, **target)


def as_text(result: SearchResult) -> str:
    """What a tool shows the model: the memories as one prompt block (quoted data between delimiters,
    each message labelled with its turn id to cite or update; :mod:`anchormem.render.prompt_block`), or a
    plain note."""
    if not result.contexts and not result.events:
        return "No memories found."
    return render_block(result, cite_ids=True).text
