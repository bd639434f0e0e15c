"""What both clients share: the service's address and key, the request headers, turning an HTTP
answer into a :class:`~anchormem.client.calls.Reply` or a library error, and the loop that drives a flow
of :mod:`~anchormem.client.calls` (:func:`drive`, written once for both clients)."""

from __future__ import annotations

import json
import os
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx

from anchormem import __version__
from anchormem.client.calls import Call, Flow, Poll, Reply
from anchormem.client.errors import error_from_response, unreachable
from anchormem.errors import ConfigError, ServiceError

DEFAULT_URL = "http://127.0.0.1:8420"
DEFAULT_TIMEOUT = 60.0
ENV_URL = "ANCHORMEM_URL"
ENV_KEY = "ANCHORMEM_API_KEY"
T = TypeVar("T")
TransportT = TypeVar("TransportT", httpx.BaseTransport, httpx.AsyncBaseTransport)


def base_url(url: str | None) -> str:
    """``url``, else ``$ANCHORMEM_URL``, else the address ``anchormem serve`` listens on by default."""
    chosen = (url or os.environ.get(ENV_URL) or DEFAULT_URL).strip().rstrip("/")
    if not chosen.startswith(("http://", "https://")):
        raise ConfigError(f"the service URL must start with http:// or https://, got {chosen!r}")
    return chosen


def headers(api_key: str | None) -> dict[str, str]:
    """The headers of every request: the key (``api_key``, else ``$ANCHORMEM_API_KEY``), if any."""
    key = api_key if api_key is not None else os.environ.get(ENV_KEY)
    out = {"User-Agent": f"anchormem-client/{__version__}", "Accept": "application/json"}
    if key:
        out["Authorization"] = f"Bearer {key}"
    return out


def request_args(call: Call) -> dict[str, Any]:
    args: dict[str, Any] = {"params": call.params or None, "headers": call.headers or None}
    if call.json is not None:
        args["json"] = call.json
    return args


def reply(response: httpx.Response, call: Call) -> Reply:
    """The parsed answer, or the library error a failed answer stands for."""
    if response.status_code >= 400:
        raise error_from_response(response.status_code, response.content)
    try:
        if call.lines:
            data: Any = [json.loads(line) for line in response.text.splitlines() if line.strip()]
        else:
            data = response.json()
    except ValueError as exc:
        raise ServiceError(f"{call.method} {call.path}: the service answered something that is not JSON") from exc
    return Reply(response.status_code, data)


@dataclass(frozen=True)
class Exchange:
    """How one client does I/O: ``request`` sends an HTTP request (``httpx`` arguments) and ``wait`` waits
    the poll interval, both awaitable. The blocking client's never suspend (see :func:`run_blocking`)."""

    url: str
    request: Callable[..., Awaitable[httpx.Response]]
    wait: Callable[[], Awaitable[None]]


async def drive(flow: Flow[T], io: Exchange) -> T:
    """Runs ``flow`` to its result: sends each :class:`Call` it yields and hands it the reply, and waits
    the poll interval at each :class:`Poll`. A request that does not reach the service raises
    :class:`~anchormem.errors.ServiceError`."""
    try:
        step: Call | Poll = next(flow)
        while True:
            if isinstance(step, Poll):
                await io.wait()
                step = next(flow)
                continue
            try:
                response = await io.request(step.method, step.path, **request_args(step))
            except httpx.TransportError as exc:
                raise unreachable(io.url, exc) from exc
            step = flow.send(reply(response, step))
    except StopIteration as stop:
        result: T = stop.value
        return result


def run_blocking(work: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends: :func:`drive` over blocking I/O, whose awaits all
    finish at once, so it runs to its end on its first step, in the calling thread."""
    try:
        work.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    work.close()
    raise RuntimeError("a blocking client's I/O suspended")


class Remote(ABC, Generic[TransportT]):
    """What :class:`~anchormem.client.Client` and :class:`~anchormem.client.AsyncClient` are built from:
    the service's ``url`` and ``api_key`` (default ``$ANCHORMEM_URL`` and ``$ANCHORMEM_API_KEY``), the
    request ``timeout``, the ``poll_seconds`` between looks at a background job, and an optional httpx
    ``transport``. Each client opens its own connection pool (:meth:`_connect`)."""

    def __init__(
        self,
        url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        poll_seconds: float = 0.5,
        transport: TransportT | None = None,
    ) -> None:
        self.url = base_url(url)
        self.poll_seconds = poll_seconds
        self._io = self._connect({"base_url": self.url, "headers": headers(api_key), "timeout": timeout}, transport)

    @abstractmethod
    def _connect(self, options: dict[str, Any], transport: TransportT | None) -> Exchange:
        """Opens the connection pool with the httpx ``options`` and says how to use it."""
