"""Reading and removing memories: list (paginated), get, delete, history, export, stats; users; health."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import chain
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from anchormem import __version__
from anchormem.errors import StoreError
from anchormem.server.errors import ApiError
from anchormem.server.gate import key_of
from anchormem.server.params import IDEMPOTENT_ERRORS, DeleteTarget, ScopeQ, error_responses, idempotency_key, page_of
from anchormem.server.schemas import MAX_PAGE, ErrorResponse, Health, Kind, Page, UserList
from anchormem.server.service import Key, Svc
from anchormem.wire.serialize import to_jsonable

router = APIRouter(prefix="/v1/users/{user_id}", tags=["records"], responses=error_responses(401, 403, 404))
service_router = APIRouter(prefix="/v1", tags=["service"])


@router.get("/memories/{kind}", response_model=Page, summary="List turns, contexts, facts or events (paginated)")
async def list_records(
    kind: Kind, scope: ScopeQ, service: Svc, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=MAX_PAGE)
) -> Any:
    records = await service.read(key_of(scope), lambda: service.memory.records(kind, **scope))
    out = page_of(records, offset, limit)
    out["items"] = to_jsonable(list(out["items"]))
    return out


@router.get("/records/{record_id}", summary="One record by id (c-…, f-…, e-… or a turn id)")
async def get_record(record_id: str, scope: ScopeQ, service: Svc) -> Any:
    return to_jsonable(await service.read(key_of(scope), lambda: service.memory.get(record_id, **scope)))


@router.delete(
    "/memories",
    summary="Delete memories: a session, a turn, a context, a scope, or all of the user's",
    responses={400: {"model": ErrorResponse}, **IDEMPOTENT_ERRORS},
    dependencies=[Depends(idempotency_key)],
)
async def delete(scope: ScopeQ, target: Annotated[DeleteTarget, Depends()], service: Svc) -> Any:
    selector = target.selector()
    return to_jsonable(await service.write(key_of(scope), lambda _progress: service.memory.delete(**selector, **scope)))


@router.get("/history", summary="What happened to this memory: adds and deletes, newest first")
async def history(scope: ScopeQ, service: Svc, limit: int | None = Query(None, ge=1, le=10_000)) -> Any:
    entries = await service.read(key_of(scope), lambda: service.memory.history(limit=limit, **scope))
    return {"items": to_jsonable(list(entries))}


@router.get(
    "/export",
    summary="Everything in the scope as JSON lines (application/x-ndjson)",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}, "description": "one JSON record per line"}},
)
async def export(scope: ScopeQ, service: Svc) -> StreamingResponse:
    def first() -> tuple[list[Any], Iterator[Any]]:
        records = iter(service.memory.export(**scope))
        return [r for r in (next(records, _END),) if r is not _END], records  # errors surface before streaming

    head, rest = await service.read(key_of(scope), first)
    lines = (json.dumps(to_jsonable(r), ensure_ascii=False) + "\n" for r in chain(head, rest))
    return StreamingResponse(
        lines,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{_safe(scope.get("user_id") or "")}.jsonl"'},
    )


_END = object()


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:64] or "export"


@router.get("/stats", summary="Counts of turns, contexts, facts, events and LLM usage")
async def stats(scope: ScopeQ, service: Svc) -> Any:
    return to_jsonable(await service.read(key_of(scope), lambda: service.memory.stats(**scope)))


@service_router.get(
    "/users",
    response_model=UserList,
    summary="The memories (scopes) this key may access",
    responses={401: {"model": ErrorResponse}},
)
async def users(key: Key, service: Svc) -> Any:
    scopes = await run_in_threadpool(service.memory.users)
    return {
        "users": [
            {"user_id": s.user_id, "agent_id": s.agent_id, "run_id": s.run_id} for s in scopes if key.may(s.user_id)
        ]
    }


@service_router.get(
    "/health",
    response_model=Health,
    summary="Liveness and the store's health (no key needed)",
    responses={503: {"model": ErrorResponse, "description": "`store_unavailable`: the store does not answer"}},
)
async def health(service: Svc) -> Any:
    try:
        await run_in_threadpool(service.memory.store.ping)
    except StoreError as exc:
        raise ApiError(503, "store_unavailable", "the store does not answer") from exc
    return {"status": "ok", "version": __version__, "jobs_running": service.jobs.running()}
