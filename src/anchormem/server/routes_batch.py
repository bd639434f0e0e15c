"""Batch ingest over REST: the LLM requests that adds with ``batch: true`` left waiting, as one OpenAI Batch API
input file, and its results file read back (docs/batch.md). The batch store holds every user's requests, so
both need an admin key."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from anchormem.server.errors import ApiError
from anchormem.server.keys import ApiKey
from anchormem.server.schemas import ErrorResponse
from anchormem.server.service import Key, Svc
from anchormem.wire.serialize import to_jsonable

JSONL = "application/jsonl"


def require_admin(key: Key) -> ApiKey:
    if not key.admin:
        raise ApiError(403, "forbidden", "batch files hold every user's requests: they need an admin key")
    return key


router = APIRouter(
    prefix="/v1/batch",
    tags=["batch"],
    dependencies=[Depends(require_admin)],
    responses={401: {"model": ErrorResponse}, 403: {"model": ErrorResponse}},
)


@router.post(
    "/export",
    summary="The LLM requests that wait for a batch answer, as an OpenAI Batch API input file (JSONL)",
    description="One request a line (`custom_id`, `method`, `url`, `body`); an empty body when nothing waits. "
    "Send the file to the Batch API (or any model), then its results file to `/v1/batch/import`.",
    response_class=Response,
    responses={200: {"content": {JSONL: {}}, "description": "the batch input file"}},
)
async def export(service: Svc) -> Response:
    def run() -> str:
        with tempfile.TemporaryDirectory(prefix="anchormem-batch-") as tmp:
            written = service.memory.batch_export(Path(tmp) / "requests.jsonl")
            return "".join(p.read_text(encoding="utf-8") for p in written)

    return Response(await run_in_threadpool(run), media_type=JSONL)


@router.post(
    "/import",
    summary="Read an OpenAI Batch API results file and finish what its answers allow",
    description="The body is the results file (JSONL). Its answers are stored, then facts and events are derived "
    "in every memory with work waiting; each line that gave no answer is reported by number (malformed, "
    "duplicate, failed, unknown: a request never made or forgotten by a delete). Safe to repeat. `waiting` "
    "counts the requests the next export holds (events after facts).",
    openapi_extra={"requestBody": {"content": {JSONL: {"schema": {"type": "string"}}}, "required": True}},
    responses={400: {"model": ErrorResponse}},
)
async def import_results(request: Request, service: Svc) -> Any:
    body = await request.body()
    if not body.strip():
        raise ApiError(400, "invalid_input", "the body must be a batch results file (JSONL), not empty")

    def run() -> Any:
        with tempfile.TemporaryDirectory(prefix="anchormem-batch-") as tmp:
            path = Path(tmp) / "results.jsonl"
            path.write_bytes(body)
            done = service.memory.batch_import(path)
        return {
            **done.results.summary(),
            "derived": [
                {"user_id": s.user_id, "agent_id": s.agent_id, "run_id": s.run_id, "report": to_jsonable(r)}
                for s, r in done.derived.items()
            ],
            "waiting": done.waiting,
        }

    return await run_in_threadpool(run)
