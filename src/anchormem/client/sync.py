"""``Client``: the REST API of ``anchormem serve`` with the method names and result types of ``Memory``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Literal, Self, TypeVar, overload

import httpx

from anchormem.client import calls
from anchormem.client.calls import Call, Flow, Record, Sleep
from anchormem.client.errors import unreachable
from anchormem.client.transport import DEFAULT_TIMEOUT, base_url, headers, reply, request_args
from anchormem.model import (
    Answer,
    Context,
    DeleteReport,
    Event,
    Fact,
    HistoryEntry,
    IngestReport,
    Scope,
    SearchResult,
    Stats,
    Turn,
)

T = TypeVar("T")


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
            step: Call | Sleep = next(flow)
            while True:
                if isinstance(step, Sleep):
                    time.sleep(step.seconds)
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

    def add(
        self,
        source: Any,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        background: bool | None = None,
        idempotency_key: str | None = None,
        **extra: Any,
    ) -> IngestReport:
        """Add messages (a list, one message dict, or a plain string as one user message) or a LoCoMo
        sample. A background ingest (``background=True``, or a large add) is polled until it ends."""
        flow = calls.add(
            source,
            user_id=user_id,
            agent_id=agent_id,
            run_id=run_id,
            background=background,
            idempotency_key=idempotency_key,
            poll_seconds=self.poll_seconds,
            extra=extra,
        )
        return self._drive(flow)

    def search(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        max_contexts: int | None = None,
        variant: str | None = None,
        **extra: Any,
    ) -> SearchResult:
        body = dict(agent_id=agent_id, run_id=run_id, k=k, max_contexts=max_contexts, variant=variant, **extra)
        return self._drive(calls.search(query, user_id=user_id, body=body))

    def answer(
        self,
        question: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        k: int | None = None,
        variant: str | None = None,
        **extra: Any,
    ) -> Answer:
        body = dict(agent_id=agent_id, run_id=run_id, k=k, variant=variant, **extra)
        return self._drive(calls.answer(question, user_id=user_id, body=body))

    # -- inspect -----------------------------------------------------------------------------------------

    def turns(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> list[Turn]:
        return self._drive(calls.records("turns", user_id=user_id, agent_id=agent_id, run_id=run_id))

    def contexts(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> list[Context]:
        return self._drive(calls.records("contexts", user_id=user_id, agent_id=agent_id, run_id=run_id))

    def facts(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> list[Fact]:
        return self._drive(calls.records("facts", user_id=user_id, agent_id=agent_id, run_id=run_id))

    def events(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> list[Event]:
        return self._drive(calls.records("events", user_id=user_id, agent_id=agent_id, run_id=run_id))

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

    def get(self, record_id: str, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> Record:
        return self._drive(calls.get(record_id, user_id=user_id, agent_id=agent_id, run_id=run_id))

    def stats(self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None) -> Stats:
        return self._drive(calls.stats(user_id=user_id, agent_id=agent_id, run_id=run_id))

    def users(self) -> list[Scope]:
        """The memories (scopes) this client's key may access."""
        return self._drive(calls.users())

    def health(self) -> dict[str, Any]:
        """The service's liveness answer (``status``, ``version``, ``jobs_running``); needs no key."""
        return self._drive(calls.health())

    # -- lifecycle ---------------------------------------------------------------------------------------

    def delete(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        run_id: str | None = None,
        session: str | None = None,
        turn: str | None = None,
        context: str | None = None,
        all: bool = False,
    ) -> DeleteReport:
        target = {"session": session, "turn": turn, "context": context, "all": all}
        return self._drive(calls.delete(user_id=user_id, agent_id=agent_id, run_id=run_id, target=target))

    def history(
        self, *, user_id: str, agent_id: str | None = None, run_id: str | None = None, limit: int | None = None
    ) -> list[HistoryEntry]:
        return self._drive(calls.history(user_id=user_id, agent_id=agent_id, run_id=run_id, limit=limit))

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
