"""What the route modules declare and answer alike: the optional scope query parameters, a short label
and a page offset as query parameters, what a delete selects, the OpenAPI entries of error answers,
and the envelope of a page of a list."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Query

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
