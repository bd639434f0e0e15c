"""``Client``: the REST API of ``anchormem serve`` with the method names and result types of ``Memory``."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, Literal, ParamSpec, Self, TypeVar, overload

import httpx

from anchormem.client import calls
from anchormem.client.calls import Call, Flow, Poll, Record, signature
from anchormem.client.errors import unreachable
from anchormem.client.transport import DEFAULT_TIMEOUT, base_url, headers, reply, request_args
from anchormem.model import Context, Event, Fact, Turn

P = ParamSpec("P")
T = TypeVar("T")


class Blocking(Generic[P, T]):
    """A :class:`Client` method that runs a flow of :mod:`~anchormem.client.calls` with blocking I/O:
    the flow's arguments, types, defaults and docstring are the method's."""

    def __init__(self, flow: Callable[P, Flow[T]]) -> None:
        self.flow = flow
        self.__doc__ = flow.__doc__
        self.signature = signature(flow)

    @overload
    def __get__(self, client: None, owner: type[Client]) -> Self: ...
    @overload
    def __get__(self, client: Client, owner: type[Client]) -> Callable[P, T]: ...
    def __get__(self, client: Client | None, owner: type[Client]) -> Self | Callable[P, T]:
        if client is None:
            return self
        flow = self.flow

        @functools.wraps(flow)
        def method(*args: P.args, **kwargs: P.kwargs) -> T:
            return client._drive(flow(*args, **kwargs))

        method.__signature__ = self.signature  # type: ignore[attr-defined]
        return method


class Client:
    """A remote memory: ``Client("http://host:8420", api_key=...)`` answers like a local ``Memory``.

    Results are the library's own types (``SearchResult``, ``Answer``, ``Turn``, ...), rebuilt from
    the service's JSON, and failures raise the library's errors (``NotFoundError``, ``InputError``,
    ``LLMNotConfiguredError``, ...; a refused key ``AccessDeniedError``, an unreachable service
    ``ServiceError``), each with the HTTP ``status`` and the service's ``code``. ``url`` and
    ``api_key`` default to ``$ANCHORMEM_URL`` and ``$ANCHORMEM_API_KEY``. Keyword arguments a method
    does not name (filters, say) are sent in the request body as given. Safe to share between threads
    (one ``httpx.Client`` connection pool).
    """

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        poll_seconds: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = base_url(url)
        self.poll_seconds = poll_seconds
        self._http = httpx.Client(base_url=self.url, headers=headers(api_key), timeout=timeout, transport=transport)

    def _drive(self, flow: Flow[T]) -> T:
        try:
            step: Call | Poll = next(flow)
            while True:
                if isinstance(step, Poll):
                    time.sleep(self.poll_seconds)
                    step = next(flow)
                    continue
                try:
                    response = self._http.request(step.method, step.path, **request_args(step))
                except httpx.TransportError as exc:
                    raise unreachable(self.url, exc) from exc
                step = flow.send(reply(response, step))
        except StopIteration as stop:
            result: T = stop.value
            return result

    # -- ingest and query --------------------------------------------------------------------------------

    add = Blocking(calls.add)
    search = Blocking(calls.search)
    answer = Blocking(calls.answer)

    # -- inspect -----------------------------------------------------------------------------------------

    turns = Blocking(calls.turns)
    contexts = Blocking(calls.contexts)
    facts = Blocking(calls.facts)
    events = Blocking(calls.events)

    @overload
    def records(
        self, kind: Literal["turns"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Turn]: ...
    @overload
    def records(
        self, kind: Literal["contexts"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Context]: ...
    @overload
    def records(
        self, kind: Literal["facts"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Fact]: ...
    @overload
    def records(
        self, kind: Literal["events"], *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Event]: ...
    @overload
    def records(
        self, kind: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> list[Record]: ...
    def records(self, kind: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> list[Any]:
        return self._drive(calls.records(kind, user_id=user_id, agent_id=agent_id, run_id=run_id))

    get = Blocking(calls.get)
    stats = Blocking(calls.stats)
    users = Blocking(calls.users)
    health = Blocking(calls.health)

    # -- lifecycle ---------------------------------------------------------------------------------------

    update = Blocking(calls.update)
    delete = Blocking(calls.delete)
    history = Blocking(calls.history)

    def export(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None
    ) -> Iterator[dict[str, Any]]:
        return iter(self._drive(calls.export(user_id=user_id, agent_id=agent_id, run_id=run_id)))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
