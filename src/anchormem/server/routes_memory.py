"""Writing and querying memories: add (now or as a background job), update a turn, job status, search,
answer."""

from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from anchormem.errors import InputError
from anchormem.ingest.pipeline import Progress
from anchormem.ingest.sources import is_locomo
from anchormem.model import IngestReport
from anchormem.server.errors import ApiError
from anchormem.server.gate import key_of
from anchormem.server.params import IDEMPOTENT_ERRORS, idempotency_key
from anchormem.server.schemas import AddRequest, AnswerRequest, ErrorResponse, Job, SearchRequest, UpdateRequest
from anchormem.server.service import Svc, UserId, request_scope
from anchormem.wire.args import ScopeArgs
from anchormem.wire.scopes import NO_USER_IN_PATH
from anchormem.wire.serialize import report_dict, to_jsonable
from anchormem.wire.validation import MAX_TURNS

router = APIRouter(
    prefix="/v1/users/{user_id}",
    tags=["memories"],
    responses={401: {"model": ErrorResponse}, 403: {"model": ErrorResponse}},
)


def _source(body: AddRequest) -> Any:
    """What the body asks to add, as it came: the facade reads and checks it."""
    if (body.messages is None) == (body.conversation is None):
        raise InputError("send either 'messages' (a list) or 'conversation' (one LoCoMo sample), not both")
    if body.messages is not None:
        return body.messages
    if not is_locomo(body.conversation):
        raise InputError("'conversation' must be a LoCoMo sample: an object with 'sample_id' and 'conversation'")
    return body.conversation


@router.post(
    "/memories",
    summary="Add a conversation or messages",
    responses={
        200: {"description": "the ingest report (ran now)"},
        202: {"model": Job, "description": "queued as a background job; poll its status"},
        400: {"model": ErrorResponse},
        413: {"model": ErrorResponse},
        429: {"model": ErrorResponse, "description": "`busy`: this memory's queue is full; retry after Retry-After"},
        **IDEMPOTENT_ERRORS,
    },
    dependencies=[Depends(idempotency_key)],
)
async def add(body: AddRequest, user_id: UserId, service: Svc) -> Any:
    scope = request_scope(user_id, body.agent_id, body.run_id)
    if body.background is False and isinstance(body.messages, list):  # refused before any work on it
        _check_foreground(len(body.messages), service.foreground_turns)
    prepare = partial(service.memory.prepare_add, _source(body), max_turns=MAX_TURNS, readd=body.readd, **scope)
    pending = await service.read(key_of(scope), prepare)  # reading the body is the memory's work too

    def call(progress: Progress | None = None) -> IngestReport:
        return service.memory.add(pending, progress=progress, batch=body.batch)

    turns = len(pending.turns)
    auto = turns > min(service.background_turns, service.foreground_turns)
    background = body.background if body.background is not None else auto
    if not background:
        _check_foreground(turns, service.foreground_turns)
        return report_dict(await service.write(key_of(pending.scope), call))
    job = service.jobs.submit(pending.scope, len(pending.turns), call)
    location = f"/v1/users/{quote(user_id or NO_USER_IN_PATH, safe='')}/jobs/{job.id}"
    return JSONResponse(job.to_dict(), status_code=202, headers={"Location": location})


def _check_foreground(turns: int, limit: int) -> None:
    if turns > limit:
        raise ApiError(
            400,
            "invalid_input",
            f"an add with background: false takes at most {limit:,} turns and this one has {turns:,}: "
            "send it with background: true (a job to poll) or in parts",
        )


@router.put(
    "/memories/turns/{turn_id:path}",
    summary="Replace one turn's text and re-derive what came from it",
    description="The turn keeps its id, session, position, speaker, time and metadata. The windows that held "
    "it are superseded with their facts and the events on those facts, cached LLM responses with the old text "
    "are forgotten, and the session is re-cut and derived again from the new text. `updated` is false when "
    "the turn already had this text (nothing changed).",
    responses={400: {"model": ErrorResponse}, 404: {"model": ErrorResponse}, **IDEMPOTENT_ERRORS},
    dependencies=[Depends(idempotency_key)],
)
async def update(turn_id: str, body: UpdateRequest, user_id: UserId, service: Svc) -> Any:
    scope = request_scope(user_id, body.agent_id, body.run_id)
    return to_jsonable(
        await service.write(key_of(scope), lambda _progress: service.memory.update(turn_id, body.text, **scope))
    )


@router.get(
    "/jobs/{job_id}",
    response_model=Job,
    summary="Status and progress of a background ingest",
    responses={404: {"model": ErrorResponse}},
)
async def job_status(job_id: str, user_id: UserId, service: Svc) -> Any:
    job = service.jobs.get(job_id, user_id)
    if job is None:
        raise ApiError(404, "not_found", f"no job {job_id!r} for user {user_id or NO_USER_IN_PATH!r}")
    return job.to_dict()


@router.post(
    "/search",
    summary="Memories for a query, best first, with provenance (or one prompt-ready block)",
    description="A user (or agent or run scope) with no memory yet gets an empty result, not an error.",
    responses={400: {"model": ErrorResponse}},
)
async def search(body: SearchRequest, user_id: UserId, service: Svc) -> Any:
    scope = _scope(user_id, body)
    options = {**body.model_dump(exclude={"query", "format"}), **scope}

    def run() -> Any:  # rendering too runs in the worker: it is the caller's work, not the event loop's
        result = service.memory.search(body.query, **options)
        if body.format == "prompt":
            block = result.prompt(max_chars=body.max_chars)
            return {
                "query": result.query,
                "prompt": block.text,
                "turn_ids": list(block.turn_ids),
                "labels": block.labels,
            }
        return to_jsonable(result)

    return await service.read(key_of(scope), run)


@router.post(
    "/answer",
    summary="Answer from memory with the configured LLM, citing turn ids",
    responses={404: {"model": ErrorResponse}, 409: {"model": ErrorResponse}, 503: {"model": ErrorResponse}},
)
async def answer(body: AnswerRequest, user_id: UserId, service: Svc) -> Any:
    scope = _scope(user_id, body)
    options = {**body.model_dump(exclude={"question"}), **scope}
    return to_jsonable(await service.read(key_of(scope), partial(service.memory.answer, body.question, **options)))


def _scope(user_id: str, body: SearchRequest | AnswerRequest) -> ScopeArgs:
    return request_scope(user_id, body.agent_id, body.run_id)
