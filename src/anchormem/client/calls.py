"""What each client method asks of the REST API and how it reads the answers, written once for both
clients: a method is a generator (a *flow*) that yields :class:`Call`\\ s (and :data:`POLL` while it
polls a background job), is sent each call's :class:`Reply`, and returns the method's result. This
module holds the flows that write and query (add, search, answer, update, delete);
:mod:`anchormem.client.reads` those that read records, history, exports and counts.
:class:`~anchormem.client.sync.Client` drives flows with blocking I/O,
:class:`~anchormem.client.aio.AsyncClient` with ``await``.

The public functions here are the clients' methods, declared once: each client class lists them
(``search = blocking(calls.search)``, ``search = awaitable(calls.search)``), so both take the same
arguments with the same types and defaults, and return the same results (awaited in the async one).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, Unpack
from urllib.parse import quote

from anchormem.client.errors import error_from_code
from anchormem.errors import InputError
from anchormem.ingest.messages import as_messages
from anchormem.ingest.sources import Conversation, is_locomo, read_json_file
from anchormem.model import Answer, DeleteReport, IngestReport, SearchResult, Turn, UpdateReport
from anchormem.wire.args import ScopeArgs, SearchArgs, scope_ids
from anchormem.wire.deserialize import from_jsonable
from anchormem.wire.scopes import NO_USER, NO_USER_IN_PATH
from anchormem.wire.validation import check_bool

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    lines: bool = False  # the answer is JSON lines (export), not one JSON document


class Poll:
    """Yielded by a flow to wait the client's ``poll_seconds`` before asking about a background job again."""


POLL = Poll()


@dataclass(frozen=True)
class Reply:
    status: int
    data: Any


Flow = Generator[Call | Poll, Reply, T]


def user_path(scope: Mapping[str, Any]) -> str:
    """The path of a scope's user: ``/v1/users/<user_id>``, or ``/v1/users/-`` for an agent's own memory
    (no user, an ``agent_id``)."""
    user_id = scope.get("user_id")
    if user_id is None or user_id == NO_USER:
        if scope.get("agent_id") is None:
            raise InputError("user_id or agent_id is required")
        return f"/v1/users/{NO_USER_IN_PATH}"
    if not isinstance(user_id, str) or not user_id.strip():
        raise InputError("user_id must be a non-empty string")
    return f"/v1/users/{quote(user_id, safe='')}"


def scope_params(scope: Mapping[str, Any], method: str) -> dict[str, Any]:
    """The ids a request names besides its path's user (a body's or query's ``agent_id``, ``run_id``). A
    keyword that is not a scope id is a :class:`TypeError`, as for a function that does not name it."""
    _, agent_id, run_id = scope_ids(scope, method)
    return {k: v for k, v in (("agent_id", agent_id), ("run_id", run_id)) if v is not None}


def _idempotent(key: str | None) -> dict[str, str]:
    """The header of a write sent with an idempotency key: its retries with the key get its first answer."""
    return {"Idempotency-Key": key} if key else {}


def _messages(source: Any, sample: str | None = None) -> dict[str, Any]:
    """The body part for what ``add`` was given, as :meth:`Memory.add <anchormem.memory.Memory.add>`
    takes it: a plain string (one user message), one message object, a list of them, a LoCoMo sample
    (an object with ``sample_id`` and ``conversation``), a :class:`Conversation`, or a
    :class:`~pathlib.Path` to a file (read here; a LoCoMo file with several samples needs ``sample``).
    The service checks the messages with the library's own normaliser."""
    if isinstance(source, Path):
        data = read_json_file(source)
        if is_locomo(data):
            samples = [s for s in (data if isinstance(data, list) else [data]) if sample in (None, s.get("sample_id"))]
            if len(samples) != 1:
                names = ", ".join(str(s.get("sample_id")) for s in samples[:10]) or "none"
                raise InputError(
                    f"{source} holds {len(samples)} matching conversations ({names}); pick one with sample=..."
                )
            return {"conversation": dict(samples[0])}
        return {"messages": as_messages(data)}
    if isinstance(source, Conversation):
        return {"messages": [_message(t) for t in source.turns]}
    if isinstance(source, Mapping) and is_locomo(source):
        return {"conversation": dict(source)}
    return {"messages": [dict(m) if isinstance(m, Mapping) else m for m in as_messages(source)]}


def _message(turn: Turn) -> dict[str, Any]:
    """A stored-shape turn as a message the service reads back to the same turn."""
    fields = {
        "id": turn.id,
        "session": turn.session,
        "speaker": turn.speaker,
        "text": turn.text,
        "timestamp": turn.time_given or turn.timestamp,
        "image_caption": turn.image_caption,
        "metadata": turn.metadata,
    }
    return {k: v for k, v in fields.items() if v is not None}


def add(
    source: Any,
    *,
    background: bool | None = None,
    idempotency_key: str | None = None,
    sample: str | None = None,
    readd: bool = False,
    **scope: Unpack[ScopeArgs],
) -> Flow[IngestReport]:
    """Add messages (a list, one message dict, or a plain string as one user message), a LoCoMo
    sample, a :class:`Conversation` or a :class:`~pathlib.Path` to a file (``sample`` picks one
    conversation of a LoCoMo file). A background ingest (``background=True``, or a large add) is
    polled until it ends. ``readd=True`` stores again messages a delete removed (else they are skipped)."""
    user, extra = user_path(scope), {k: v for k, v in scope.items() if k != "user_id"}  # unnamed keywords as given
    body = {**_messages(source, sample), **{k: v for k, v in extra.items() if v is not None}}
    if background is not None:
        body["background"] = check_bool(background, "background", "add")
    if check_bool(readd, "readd", "add"):
        body["readd"] = True
    reply = yield Call("POST", f"{user}/memories", json=body, headers=_idempotent(idempotency_key))
    if reply.status != 202:
        return from_jsonable(IngestReport, reply.data)
    job, status = reply.data, reply.status
    while True:  # a background job: poll until it ends
        if job["status"] == "succeeded":
            return from_jsonable(IngestReport, job["result"])
        if job["status"] == "failed":
            error = job.get("error") or {}
            message = str(error.get("message") or "the background ingest failed")
            raise error_from_code(str(error.get("code") or "internal_error"), message, status)
        yield POLL
        polled = yield Call("GET", f"{user}/jobs/{quote(str(job['id']), safe='')}")
        job, status = polled.data, polled.status


def _ask(endpoint: str, result: type[T], body: Mapping[str, Any]) -> Flow[T]:
    """``search`` and ``answer``: a POST of ``body`` to the scope's ``endpoint``. ``None`` values are left
    out, and so is ``include_subscopes=True`` (the service's default); a ``datetime`` bound goes as ISO 8601
    and keywords the method does not name go as given."""
    for flag in ("trace", "include_subscopes"):
        if flag in body:
            check_bool(body[flag], flag, endpoint)
    payload = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in body.items() if k != "user_id"}
    if isinstance(body.get("filters"), Mapping):
        payload["filters"] = dict(body["filters"])
    if payload.get("include_subscopes") is True:
        del payload["include_subscopes"]
    reply = yield Call(
        "POST", f"{user_path(body)}/{endpoint}", json={k: v for k, v in payload.items() if v is not None}
    )
    return from_jsonable(result, reply.data)


def search(query: str, *, max_contexts: int | None = None, **options: Unpack[SearchArgs]) -> Flow[SearchResult]:
    return _ask("search", SearchResult, {"query": query, "max_contexts": max_contexts, **options})


def answer(question: str, **options: Unpack[SearchArgs]) -> Flow[Answer]:
    return _ask("answer", Answer, {"question": question, **options})


def update(
    turn_id: str, text: str, *, idempotency_key: str | None = None, **scope: Unpack[ScopeArgs]
) -> Flow[UpdateReport]:
    """Replace one turn's text; what came from the old text is derived again from the new."""
    if not isinstance(turn_id, str) or not turn_id:
        raise InputError("turn_id must be a non-empty string")
    path = f"{user_path(scope)}/memories/turns/{quote(turn_id, safe='')}"
    reply = yield Call(
        "PUT", path, json={"text": text, **scope_params(scope, "update")}, headers=_idempotent(idempotency_key)
    )
    return from_jsonable(UpdateReport, reply.data)


def delete(
    *,
    session: str | None = None,
    turn: str | None = None,
    context: str | None = None,
    all: bool = False,
    idempotency_key: str | None = None,
    **scope: Unpack[ScopeArgs],
) -> Flow[DeleteReport]:
    check_bool(all, "all", "delete")
    target = {"session": session, "turn": turn, "context": context, "all": "true" if all else None}
    params = {**scope_params(scope, "delete"), **{k: v for k, v in target.items() if v not in (None, False)}}
    reply = yield Call("DELETE", f"{user_path(scope)}/memories", params=params, headers=_idempotent(idempotency_key))
    return from_jsonable(DeleteReport, reply.data)
