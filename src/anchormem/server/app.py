"""The FastAPI application: ``create_app(memory, keys)``. Every handler is a thin shell over
:class:`anchormem.Memory`; its (synchronous) calls run in worker threads, never on the event loop."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from anchormem import __version__
from anchormem.memory import Memory
from anchormem.server import errors
from anchormem.server.errors import ApiError, error_body
from anchormem.server.gate import DEFAULT_QUEUE, DEFAULT_READERS, Gates
from anchormem.server.idempotency import Idempotency
from anchormem.server.jobs import JobManager
from anchormem.server.keys import KeyRing
from anchormem.server.routes_batch import router as batch_router
from anchormem.server.routes_memory import router as memory_router
from anchormem.server.routes_records import router as records_router
from anchormem.server.routes_records import service_router
from anchormem.server.service import DEFAULT_BACKGROUND_TURNS, DEFAULT_FOREGROUND_TURNS, DEFAULT_MAX_BODY, Service
from anchormem.server.ui import router as ui_router
from anchormem.server.warmup import warm_up

log = logging.getLogger("anchormem.server")

DESCRIPTION = """Long-term memory for LLM agents (AnchorMem): add conversations, search the original words
with provenance, answer with citations.

Every endpoint under `/v1/users/{user_id}` needs an API key (`Authorization: Bearer <key>` or `X-API-Key`)
that may access that user; otherwise 401 `unauthorized` or 403 `forbidden`. The user `-` is an agent's own
memory (no user; the request's `agent_id` names the agent, else 400 `invalid_input`), open to admin keys and
keys that list `-`. Errors are
`{"error": {"code": "...", "message": "..."}}` with stable codes: `invalid_input`, `validation_error`,
`not_found`, `unauthorized`, `forbidden`, `payload_too_large`, `llm_not_configured`, `llm_unavailable`,
`llm_bad_response`, `llm_error`, `embedding_unavailable`, `config_error`, `store_full` (507: the store's disk
is full; nothing of the write was stored), `store_unavailable` (503: the database cannot be reached now),
`store_error`, `internal_error`, `busy` (429: this memory already has a full queue of waiting requests; retry
after the `Retry-After` seconds); and for a retried write, `idempotency_key_reused` (422) and
`idempotency_in_progress` (409).

Writes (add, update, delete) accept an `Idempotency-Key` header: a retry with the same key and request gets
the first response again (`Idempotent-Replayed: true`) without running twice.

Requests for one memory (a user, or an agent's own memory) wait their turn without holding the server's
workers: one write and a few reads of a memory run at a time, the rest wait in arrival order, so one busy
memory never slows another's requests. An add of more than 200 turns runs as a background job (202) unless
it says `background`; one that says `background: false` may hold at most 200 turns (more: 400
`invalid_input`)."""


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413 ``payload_too_large``, whether the
    client declares a Content-Length or streams a chunked body."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _send_413(send, self.limit)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise ApiError(413, "payload_too_large", _too_large(self.limit))
            return message

        await self.app(scope, limited, send)


def _too_large(limit: int) -> str:
    return f"the request body is over the limit of {limit:,} bytes"


async def _send_413(send: Send, limit: int) -> None:
    import json

    body = json.dumps(error_body("payload_too_large", _too_large(limit))).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def create_app(
    memory: Memory,
    keys: KeyRing,
    *,
    max_body: int = DEFAULT_MAX_BODY,
    background_turns: int = DEFAULT_BACKGROUND_TURNS,
    foreground_turns: int = DEFAULT_FOREGROUND_TURNS,
    job_concurrency: int = 2,
    readers_per_memory: int = DEFAULT_READERS,
    queue_per_memory: int = DEFAULT_QUEUE,
    warm: bool = True,
) -> FastAPI:
    """The REST API over ``memory``; ``keys`` decides who may touch which user's memory.
    The caller owns ``memory`` (and closes it after the server stops).

    Requests for one memory pass its gate (:mod:`anchormem.server.gate`): one write and
    ``readers_per_memory`` reads run at a time, up to ``queue_per_memory`` wait without holding a worker
    thread, more get 429 ``busy``. An add of more than ``background_turns`` turns runs as a job unless it
    says ``background``; one with ``background: false`` may hold at most ``foreground_turns``.

    ``warm``: at startup, before any request is served (uvicorn listens only after it), open the
    store and load the embedding model, so the first request does not wait for them."""
    service = Service(
        memory=memory,
        keys=keys,
        jobs=JobManager(concurrency=job_concurrency, gates=Gates(readers_per_memory, queue_per_memory)),
        max_body=max_body,
        background_turns=background_turns,
        foreground_turns=foreground_turns,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if warm:
            seconds = await anyio.to_thread.run_sync(warm_up, memory)
            log.info("store open and embedding model loaded in %.1f s; accepting requests", seconds)
        yield
        await service.jobs.drain()

    app = FastAPI(
        title="anchormem",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.service = service
    errors.install(app)
    app.include_router(service_router)
    app.include_router(memory_router)
    app.include_router(records_router)
    app.include_router(batch_router)
    app.include_router(ui_router)
    app.add_middleware(Idempotency, store=lambda: memory.store, keys=keys)
    app.add_middleware(BodyLimit, limit=max_body)  # the outer one: a retried body is read within the limit
    return app


def openapi_schema() -> dict[str, Any]:
    """The service's OpenAPI document (what ``docs/openapi.json`` holds)."""
    app = create_app(Memory(), KeyRing(), warm=False)
    return app.openapi()
