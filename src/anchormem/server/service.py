"""What every request handler shares: the memory, the keys, the jobs and the limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from anchormem.memory import Memory
from anchormem.server.errors import ApiError
from anchormem.server.jobs import JobManager
from anchormem.server.keys import ApiKey, KeyRing
from anchormem.wire.args import ScopeArgs
from anchormem.wire.scopes import NO_USER, NO_USER_IN_PATH

DEFAULT_MAX_BODY = 8 * 1024 * 1024
DEFAULT_BACKGROUND_TURNS = 200


@dataclass
class Service:
    memory: Memory
    keys: KeyRing
    jobs: JobManager = field(default_factory=JobManager)
    max_body: int = DEFAULT_MAX_BODY
    background_turns: int = DEFAULT_BACKGROUND_TURNS


def get_service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")
_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="the API key in an X-API-Key header")


def require_key(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header)],
) -> ApiKey:
    """The caller's key (Bearer token or X-API-Key), else 401 ``unauthorized``."""
    raw = bearer.credentials if bearer is not None else header
    if not raw:
        raise ApiError(
            401,
            "unauthorized",
            "missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    key = get_service(request).keys.authenticate(raw)
    if key is None:
        raise ApiError(401, "unauthorized", "invalid API key", headers={"WWW-Authenticate": "Bearer"})
    return key


def require_user(user_id: str, key: Annotated[ApiKey, Depends(require_key)]) -> str:
    """The path's ``user_id``, if the caller's key may touch that user, else 403 ``forbidden``. The path
    user ``-`` is no user (``NO_USER``): an agent's own memory, named by the request's ``agent_id``."""
    if not key.may(user_id):
        if user_id == NO_USER_IN_PATH:
            raise ApiError(403, "forbidden", "this API key may not access agents' own memories (path user '-')")
        raise ApiError(403, "forbidden", f"this API key may not access user {user_id!r}")
    return NO_USER if user_id == NO_USER_IN_PATH else user_id


def request_scope(user_id: str, agent_id: str | None, run_id: str | None) -> ScopeArgs:
    """The scope a request names: the checked path user with the request's ``agent_id`` and ``run_id``.
    An agent's own memory (path user ``-``) needs an ``agent_id``, else 400 ``invalid_input``."""
    if user_id == NO_USER and agent_id is None:
        raise ApiError(400, "invalid_input", "the path user '-' is an agent's own memory: name the agent with agent_id")
    return {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}


Svc = Annotated[Service, Depends(get_service)]
Key = Annotated[ApiKey, Depends(require_key)]
UserId = Annotated[str, Depends(require_user)]
"""``user_id`` from the path, checked against the caller's key (``""`` for the path user ``-``)."""
