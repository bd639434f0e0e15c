"""What the route modules declare and answer alike: the optional scope query parameters, a short label
and a page offset as query parameters, what a delete selects, the OpenAPI entries of error answers,
and the envelope of a page of a list."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Header, Query

from anchormem.server.schemas import ErrorResponse

AgentQ = Query(None, max_length=256, description="agent id (optional finer scope)")
RunQ = Query(None, max_length=256, description="run id (optional finer scope)")

LabelQ = Annotated[str | None, Query(max_length=256)]
"""An optional short label (a session, a speaker, a turn or context id) as a query parameter."""
OffsetQ = Annotated[int, Query(ge=0)]
"""Where a page starts."""


@dataclasses.dataclass(frozen=True)
class DeleteTarget:
    """What a delete selects within the scope, as query parameters (``Annotated[DeleteTarget,
    Depends()]``): a session, a turn, a context, or everything."""

    session: LabelQ = None
    turn: LabelQ = None
    context: LabelQ = None
    all: Annotated[bool, Query(description="delete everything in the scope")] = False

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
