"""The request flows of the client methods that read a memory: its records (page by page), one record,
its history, an export, its counts, and the service's users and health. See :mod:`anchormem.client.calls`
for what a flow is; the writes and queries are there."""

from __future__ import annotations

from typing import Any, Unpack
from urllib.parse import quote

from anchormem.client.calls import Call, Flow, scope_params, user_path
from anchormem.errors import InputError
from anchormem.model import Context, Event, Fact, HistoryEntry, Scope, Stats, Turn
from anchormem.wire.args import Record, ScopeArgs
from anchormem.wire.deserialize import RECORD_TYPES, from_jsonable, record_type

PAGE = 1000
"""Records asked for per page when a client lists a memory (the service's largest page)."""


def records(kind: str, **scope: Unpack[ScopeArgs]) -> Flow[list[Any]]:
    """Every record of one kind, page by page."""
    if kind not in RECORD_TYPES:
        raise InputError(f"unknown kind {kind!r}; choose {', '.join(RECORD_TYPES)}")
    out: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        params = {**scope_params(scope, "records"), "offset": offset, "limit": PAGE}
        page = (yield Call("GET", f"{user_path(scope)}/memories/{kind}", params=params)).data
        out.extend(
            from_jsonable(RECORD_TYPES[kind], item, f"{kind}[{offset + i}]") for i, item in enumerate(page["items"])
        )
        offset = page.get("next_offset")
    return out


def turns(**scope: Unpack[ScopeArgs]) -> Flow[list[Turn]]:
    return records("turns", **scope)


def contexts(**scope: Unpack[ScopeArgs]) -> Flow[list[Context]]:
    return records("contexts", **scope)


def facts(**scope: Unpack[ScopeArgs]) -> Flow[list[Fact]]:
    return records("facts", **scope)


def events(**scope: Unpack[ScopeArgs]) -> Flow[list[Event]]:
    return records("events", **scope)


def get(record_id: str, **scope: Unpack[ScopeArgs]) -> Flow[Record]:
    path = f"{user_path(scope)}/records/{quote(record_id, safe='')}"
    reply = yield Call("GET", path, params=scope_params(scope, "get"))
    return from_jsonable(record_type(record_id), reply.data)


def history(*, limit: int | None = None, **scope: Unpack[ScopeArgs]) -> Flow[list[HistoryEntry]]:
    params = {**scope_params(scope, "history"), **({"limit": limit} if limit is not None else {})}
    reply = yield Call("GET", f"{user_path(scope)}/history", params=params)
    return from_jsonable(list[HistoryEntry], reply.data["items"], "history")


def export(**scope: Unpack[ScopeArgs]) -> Flow[list[dict[str, Any]]]:
    reply = yield Call("GET", f"{user_path(scope)}/export", params=scope_params(scope, "export"), lines=True)
    records: list[dict[str, Any]] = reply.data
    return records


def stats(**scope: Unpack[ScopeArgs]) -> Flow[Stats]:
    reply = yield Call("GET", f"{user_path(scope)}/stats", params=scope_params(scope, "stats"))
    return from_jsonable(Stats, reply.data)


def users() -> Flow[list[Scope]]:
    """The memories (scopes) this client's key may access."""
    reply = yield Call("GET", "/v1/users")
    return from_jsonable(list[Scope], reply.data["users"], "users")


def health() -> Flow[dict[str, Any]]:
    """The service's liveness answer (``status``, ``version``, ``jobs_running``); needs no key."""
    reply = yield Call("GET", "/v1/health")
    data: dict[str, Any] = reply.data
    return data
