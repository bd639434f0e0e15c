"""What the route modules declare and answer alike: the scope of a request that names it in the query,
a short label and a page offset as query parameters, what a delete selects, the OpenAPI entries of
error answers, and the envelope of a page of a list."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Depends, Header, Query
from pydantic import BeforeValidator

from anchormem.server.schemas import ErrorResponse
from anchormem.server.service import UserId, request_scope
from anchormem.wire.args import ScopeArgs

AgentQ = Query(None, max_length=256, description="agent id (optional finer scope; required under the path user `-`)")
RunQ = Query(None, max_length=256, description="run id (optional finer scope)")


def query_scope(user_id: UserId, agent_id: str | None = AgentQ, run_id: str | None = RunQ) -> ScopeArgs:
    """The scope of a request without a body: the path's user, ``agent_id`` and ``run_id`` from the query."""
    return request_scope(user_id, agent_id, run_id)


ScopeQ = Annotated[ScopeArgs, Depends(query_scope)]
"""The scope a request names in its path and query, as ``Memory``'s keyword arguments."""

LabelQ = Annotated[str | None, Query(max_length=256)]
"""An optional short label (a session, a speaker, a turn or context id) as a query parameter."""
OffsetQ = Annotated[int, Query(ge=0)]
"""Where a page starts."""


def strict_flag(value: object) -> bool:
    """A boolean query parameter: ``true`` or ``false`` only (``1``, ``yes``, ``no``, ``0`` are refused, not read
    as one or the other)."""
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise ValueError("must be true or false")


FlagQ = Annotated[bool, BeforeValidator(strict_flag)]
"""A boolean query parameter that takes ``true`` or ``false`` only."""


@dataclasses.dataclass(frozen=True)
class DeleteTarget:
    """What a delete selects within the scope, as query parameters (``Annotated[DeleteTarget,
    Depends()]``): a session, a turn, a context, or everything."""

    session: LabelQ = None
    turn: LabelQ = None
    context: LabelQ = None
    all: Annotated[FlagQ, Query(description="delete everything in the scope (true or false)")] = False

    def selector(self) -> dict[str, Any]:
        """The keyword arguments of ``Memory.delete`` that select it."""
        return dataclasses.asdict(self)


def idempotency_key(
    key: str | None = Header(
        None,
        alias="Idempotency-Key",
        description="any unique string (1 to 255 visible ASCII characters, e.g. a UUID) chosen per request: a "
        "retry with the same key and request gets the first response again (header Idempotent-Replayed: true) "
        "without running twice; the same key with another request is refused (422 idempotency_key_reused). "
        "Successful responses are kept for 24 hours, per API key and user.",
    ),
) -> str | None:
    """Declares the header in the OpenAPI schema; :mod:`anchormem.server.idempotency` honours it."""
    return key


IDEMPOTENT_ERRORS: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorResponse, "description": "`idempotency_in_progress`: the key's first request still runs"},
    422: {"model": ErrorResponse, "description": "`idempotency_key_reused` (or `validation_error`)"},
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses``: each of ``statuses`` answers an :class:`ErrorResponse`."""
    return {status: {"model": ErrorResponse} for status in statuses}


def page_of(items: Sequence[Any], offset: int, limit: int) -> dict[str, Any]:
    """``items[offset:offset + limit]`` as a page: with the total, the page's bounds and the offset of the
    next page (``None`` after the last)."""
    end = min(offset + limit, len(items))
    return {
        "items": items[offset:end],
        "total": len(items),
        "offset": offset,
        "limit": limit,
        "next_offset": end if end < len(items) else None,
    }
