"""What the route modules declare alike: the optional scope query parameters and the OpenAPI entries of
error answers."""

from __future__ import annotations

from typing import Any

from fastapi import Query

from anchormem.server.schemas import ErrorResponse

AgentQ = Query(None, max_length=256, description="agent id (optional finer scope)")
RunQ = Query(None, max_length=256, description="run id (optional finer scope)")


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses``: each of ``statuses`` answers an :class:`ErrorResponse`."""
    return {status: {"model": ErrorResponse} for status in statuses}
