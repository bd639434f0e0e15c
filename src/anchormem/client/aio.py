"""``AsyncClient``: the REST API of ``anchormem serve`` for asyncio code, with the method names and
result types of ``Memory`` (each method awaitable)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, Self, TypeVar, Unpack

import httpx

from anchormem._util.bound import Bound
from anchormem.client import calls, reads
from anchormem.client.calls import Flow
from anchormem.client.transport import Exchange, Remote, drive
from anchormem.wire.args import AsyncRecordsReader, ScopeArgs

P = ParamSpec("P")
T = TypeVar("T")


def awaitable(flow: Callable[P, Flow[T]]) -> Bound[AsyncClient, P, Coroutine[Any, Any, T]]:
    """An :class:`AsyncClient` method that runs a flow of :mod:`~anchormem.client.calls` with ``await``:
    the flow's arguments, types, defaults and docstring are the method's."""

    async def call(client: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await drive(flow(*args, **kwargs), client._io)

    return Bound(call, flow)


class AsyncClient(Remote[httpx.AsyncBaseTransport]):
    """A remote memory for asyncio code: ``await AsyncClient(url, api_key=...).search(...)`` answers
    like a local ``Memory`` (and like :class:`~anchormem.client.sync.Client`, of which it is the async twin:
    the same arguments, results and errors). Safe to share between tasks of one event loop (one
    ``httpx.AsyncClient`` connection pool).
    """

    def _connect(self, options: dict[str, Any], transport: httpx.AsyncBaseTransport | None) -> Exchange:
        self._http = httpx.AsyncClient(**options, transport=transport)
        return Exchange(self.url, self._http.request, lambda: asyncio.sleep(self.poll_seconds))

    # -- the methods of Memory, made from the flows of calls and reads (see anchormem._util.bound) -----------

    add = awaitable(calls.add)
    search = awaitable(calls.search)
    answer = awaitable(calls.answer)
    update = awaitable(calls.update)
    delete = awaitable(calls.delete)
    turns = awaitable(reads.turns)
    contexts = awaitable(reads.contexts)
    facts = awaitable(reads.facts)
    events = awaitable(reads.events)
    get = awaitable(reads.get)
    stats = awaitable(reads.stats)
    users = awaitable(reads.users)
    health = awaitable(reads.health)
    history = awaitable(reads.history)
    export = awaitable(reads.export)

    @property
    def records(self) -> AsyncRecordsReader:
        """``await records(kind, *, user_id=None, agent_id=None, run_id=None)``: every record of one kind."""
        return self._records

    async def _records(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Any]:
        return await drive(reads.records(kind, **scope), self._io)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
