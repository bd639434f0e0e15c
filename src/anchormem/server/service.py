"""What every request handler shares: the memory, the keys, the jobs and the limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from anchormem.ingest.pipeline import Progress
from anchormem.memory import Memory
from anchormem.server.errors import ApiError
from anchormem.server.gate import Gates
from anchormem.server.jobs import JobManager
from anchormem.server.keys import ApiKey, KeyRing
from anchormem.wire.args import ScopeArgs
from anchormem.wire.scopes import NO_USER, NO_USER_IN_PATH

DEFAULT_MAX_BODY = 8 * 1024 * 1024
DEFAULT_BACKGROUND_TURNS = 200
DEFAULT_FOREGROUND_TURNS = 200
T = TypeVar("T")


@dataclass
class Service:
    """``background_turns``: an add of more turns runs as a job unless it says ``background``;
    ``foreground_turns``: the most an add with ``background: false`` may hold (more is refused)."""

    memory: Memory
    keys: KeyRing
    jobs: JobManager = field(default_factory=JobManager)
    max_body: int = DEFAULT_MAX_BODY
    background_turns: int = DEFAULT_BACKGROUND_TURNS
    foreground_turns: int = DEFAULT_FOREGROUND_TURNS

    @property
    def gates(self) -> Gates:
        return self.jobs.gates

    async def read(self, key: str, fn: Callable[[], T]) -> T:
        """``fn()`` in a worker thread when one of memory ``key``'s read turns is free."""
        async with self.gates.read(key):
            return await run_in_threadpool(fn)

    async def write(self, key: str, fn: Callable[[Progress | None], T]) -> T:
        """``fn(progress)`` in a worker thread when memory ``key``'s write turn comes, paced
        (:mod:`anchormem.server.gate`): ``progress`` is the turn's pacer, for a long write's steps."""
        async with self.gates.write(key) as turn:
            return await run_in_threadpool(turn.timed(partial(fn, turn.pacer())))


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
