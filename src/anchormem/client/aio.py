"""``AsyncClient``: the REST API of ``anchormem serve`` for asyncio code, with the method names and
result types of ``Memory`` (each method awaitable)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Literal, ParamSpec, Self, TypeVar, overload

import httpx

from anchormem.client import calls
from anchormem.client.calls import Call, Flow, Poll, Record, signature
from anchormem.client.errors import unreachable
from anchormem.client.transport import DEFAULT_TIMEOUT, base_url, headers, reply, request_args
from anchormem.model import Context, Event, Fact, Turn

P = ParamSpec("P")
T = TypeVar("T")


class Awaiting(Generic[P, T]):
    """An :class:`AsyncClient` method that runs a flow of :mod:`~anchormem.client.calls` with ``await``:
    the flow's arguments, types, defaults and docstring are the method's."""

    def __init__(self, flow: Callable[P, Flow[T]]) -> None:
        self.flow = flow
        self.__doc__ = flow.__doc__
        self.signature = signature(flow)

    @overload
    def __get__(self, client: None, owner: type[AsyncClient]) -> Self: ...
    @overload
    def __get__(self, client: AsyncClient, owner: type[AsyncClient]) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(
        self, client: AsyncClient | None, owner: type[AsyncClient]
    ) -> Self | Callable[P, Coroutine[Any, Any, T]]:
        if client is None:
            return self
        flow = self.flow

        @functools.wraps(flow)
        async def method(*args: P.args, **kwargs: P.kwargs) -> T:
            return await client._drive(flow(*args, **kwargs))

        method.__signature__ = self.signature  # type: ignore[attr-defined]
        return method


class AsyncClient:
    """A remote memory for asyncio code: ``await AsyncClient(url, api_key=...).search(...)`` answers
    like a local ``Memory`` (and like :class:`~anchormem.client.sync.Client`, of which it is the async twin).

    Results are the library's own types (``SearchResult``, ``Answer``, ``Turn``, ...), rebuilt from
    the service's JSON, and failures raise the library's errors (``NotFoundError``, ``InputError``,
    ``LLMNotConfiguredError``, ...; a refused key ``AccessDeniedError``, an unreachable service
    ``ServiceError``), each with the HTTP ``status`` and the service's ``code``. ``url`` and
    ``api_key`` default to ``$ANCHORMEM_URL`` and ``$ANCHORMEM_API_KEY``. Keyword arguments a method
    does not name (filters, say) are sent in the request body as given. Safe to share between tasks of one event loop
    (one ``httpx.AsyncClient`` connection pool).
    """

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        poll_seconds: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url(url)
        self.poll_seconds = poll_seconds
        self._http = httpx.AsyncClient(
            base_url=self.url, headers=headers(api_key), timeout=timeout, transport=transport
        )

    async def _drive(self, flow: Flow[T]) -> T:
        try:
            step: Call | Poll = next(flow)
            while True:
                if isinstance(step, Poll):
                    await asyncio.sleep(self.poll_seconds)
                    step = next(flow)
                    continue
                try:
                    response = await self._http.request(step.method, step.path, **request_args(step))
                except httpx.TransportError as exc:
                    raise unreachable(self.url, exc) from exc
                step = flow.send(reply(response, step))
        except StopIteration as stop:
            result: T = stop.value
            return result

    # -- ingest and query --------------------------------------------------------------------------------

    add = Awaiting(calls.add)
    search = Awaiting(calls.search)
    answer = Awaiting(calls.answer)

    # -- inspect -----------------------------------------------------------------------------------------

    turns = Awaiting(calls.turns)
    contexts = Awaiting(calls.contexts)
    facts = Awaiting(calls.facts)
    events = Awaiting(calls.events)

    @overload
    async def records(
        self, kind: Literal["turns"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Turn]: ...
    @overload
    async def records(
        self, kind: Literal["contexts"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Context]: ...
    @overload
    async def records(
        self, kind: Literal["facts"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Fact]: ...
    @overload
    async def records(
        self, kind: Literal["events"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Event]: ...
    @overload
    async def records(
        self, kind: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Record]: ...
    async def records(
        self, kind: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Any]:
        return await self._drive(calls.records(kind, user_id=user_id, agent_id=agent_id, run_id=run_id))

    get = Awaiting(calls.get)
    stats = Awaiting(calls.stats)
    users = Awaiting(calls.users)
    health = Awaiting(calls.health)

    # -- lifecycle ---------------------------------------------------------------------------------------

    update = Awaiting(calls.update)
    delete = Awaiting(calls.delete)
    history = Awaiting(calls.history)
    export = Awaiting(calls.export)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
