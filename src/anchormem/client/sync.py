"""``Client``: the REST API of ``anchormem serve`` with the method names and result types of ``Memory``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, Self, TypeVar, Unpack

import httpx

from anchormem._util.bound import Bound
from anchormem.client import calls, reads
from anchormem.client.calls import Flow
from anchormem.client.transport import Exchange, Remote, drive, run_blocking
from anchormem.wire.args import RecordsReader, ScopeArgs

P = ParamSpec("P")
T = TypeVar("T")


def blocking(flow: Callable[P, Flow[T]]) -> Bound[Client, P, T]:
    """A :class:`Client` method that runs a flow of :mod:`~anchormem.client.calls` with blocking I/O:
    the flow's arguments, types, defaults and docstring are the method's."""

    def call(client: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return run_blocking(drive(flow(*args, **kwargs), client._io))

    return Bound(call, flow)


class Client(Remote[httpx.BaseTransport]):
    """A remote memory: ``Client("http://host:8420", api_key=...)`` answers like a local ``Memory``.

    Results are the library's own types (``SearchResult``, ``Answer``, ``Turn``, ...), rebuilt from
    the service's JSON, and failures raise the library's errors (``NotFoundError``, ``InputError``,
    ``LLMNotConfiguredError``, ...; a refused key ``AccessDeniedError``, an unreachable service
    ``ServiceError``), each with the HTTP ``status`` and the service's ``code``. ``url`` and
    ``api_key`` default to ``$ANCHORMEM_URL`` and ``$ANCHORMEM_API_KEY``. Keyword arguments ``add``,
    ``search`` or ``answer`` do not name are sent in the request body as given. An agent's own memory
    (``user_id=None`` with an ``agent_id``) is the service's path user ``-``. Safe to share between
    threads (one ``httpx.Client`` connection pool).
    """

    def _connect(self, options: dict[str, Any], transport: httpx.BaseTransport | None) -> Exchange:
        self._http = httpx.Client(**options, transport=transport)

        async def request(*args: Any, **kwargs: Any) -> httpx.Response:
            return self._http.request(*args, **kwargs)

        async def wait() -> None:
            time.sleep(self.poll_seconds)

        return Exchange(self.url, request, wait)

    # -- the methods of Memory, made from the flows of calls and reads (see anchormem._util.bound) -----------

    add = blocking(calls.add)
    search = blocking(calls.search)
    answer = blocking(calls.answer)
    update = blocking(calls.update)
    delete = blocking(calls.delete)
    turns = blocking(reads.turns)
    contexts = blocking(reads.contexts)
    facts = blocking(reads.facts)
    events = blocking(reads.events)
    get = blocking(reads.get)
    stats = blocking(reads.stats)
    users = blocking(reads.users)
    health = blocking(reads.health)
    history = blocking(reads.history)

    # -- written out: a result typed by its kind, and an iterator as Memory's --------------------------

    def export(self, **scope: Unpack[ScopeArgs]) -> Iterator[dict[str, Any]]:
        return iter(run_blocking(drive(reads.export(**scope), self._io)))

    @property
    def records(self) -> RecordsReader:
        """``records(kind, *, user_id=None, agent_id=None, run_id=None)``: every record of one kind, by name."""
        return self._records

    def _records(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Any]:
        return run_blocking(drive(reads.records(kind, **scope), self._io))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
