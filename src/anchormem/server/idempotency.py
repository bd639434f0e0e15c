"""Safe retries of the REST writes: the ``Idempotency-Key`` header.

A write (add ``POST /v1/users/{user}/memories``, update ``PUT /v1/users/{user}/memories/turns/{turn}``,
delete ``DELETE /v1/users/{user}/memories``) sent with ``Idempotency-Key: <key>`` runs once: its response
(status, body, ``Location``) is stored in the memory's store, and a retry with the same key and the same
request (method, path, query and JSON body) gets that response again, marked ``Idempotent-Replayed: true``,
without running. The same key with a different request is refused (422 ``idempotency_key_reused``); a
retry while the first request still runs in another server process gets 409 ``idempotency_in_progress``
(in this process it waits for the first and gets its response).

Keys belong to the API key and the user of the path, so two tenants never see each other's responses.
Only successful responses (2xx) are kept: after an error the key is free and a retry runs again (an add
resumes where it stopped). Records expire after :data:`KEEP_SECONDS`; at most :data:`PER_OWNER` answered
records are kept per API key and user (the oldest go first); a claim whose process died is taken over
after :data:`LEASE_SECONDS`. Stored responses hold reports (counts, ids, notes), never message text.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from anchormem.errors import AnchorMemError
from anchormem.server.errors import classify, error_body, public_message
from anchormem.server.keys import KeyRing
from anchormem.store.protocol import SavedRequest, Store

log = logging.getLogger("anchormem.server")

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEEP_SECONDS = 24 * 3600.0
"""How long a stored response answers retries."""
LEASE_SECONDS = 3600.0
"""An unanswered claim this old is taken for abandoned (its server process stopped) and may be claimed again."""
PER_OWNER = 10_000
"""Answered records kept per API key and user."""
MAX_KEY_CHARS = 255

_WRITES = {
    "POST": re.compile(r"^/v1/users/(?P<user>[^/]+)/memories$"),
    "DELETE": re.compile(r"^/v1/users/(?P<user>[^/]+)/memories$"),
    "PUT": re.compile(r"^/v1/users/(?P<user>[^/]+)/memories/turns/.+$"),
}
_KEPT_HEADERS = (b"content-type", b"location")
_KEY_CHARS = re.compile(r"^[\x21-\x7e]+$")


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    """What a request asks, hashed: a JSON body counts by its content (key order and spacing do not)."""
    try:
        content = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except (ValueError, RecursionError):
        content = body
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode("utf-8", "surrogatepass"), query, content):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


@dataclass
class _Waiters:
    """One lock per (owner, key) in this process, dropped when nobody holds or waits for it."""

    locks: dict[tuple[str, str], tuple[asyncio.Lock, int]] = field(default_factory=dict)

    @contextmanager
    def counted(self, name: tuple[str, str]) -> Iterator[asyncio.Lock]:
        lock, users = self.locks.get(name, (asyncio.Lock(), 0))
        self.locks[name] = (lock, users + 1)
        try:
            yield lock
        finally:
            lock, users = self.locks[name]
            if users <= 1:
                del self.locks[name]
            else:
                self.locks[name] = (lock, users - 1)


class Idempotency:
    """ASGI middleware that answers retried writes from their stored response (see the module's notes).

    A request without the header, or one this middleware does not cover (reads, searches), or whose key
    is missing or may not access the user, passes through unchanged (the API then answers 401/403)."""

    def __init__(self, app: ASGIApp, store: Callable[[], Store], keys: KeyRing) -> None:
        self.app = app
        self._store = store  # the memory opens its store on first use
        self._keys = keys
        self._waiters = _Waiters()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _WRITES:
            await self.app(scope, receive, send)
            return
        key = _header(scope, HEADER.lower().encode())
        found = _WRITES[scope["method"]].match(scope["path"])
        if key is None or found is None:
            await self.app(scope, receive, send)
            return
        owner = await anyio.to_thread.run_sync(self._owner, scope, found["user"])
        if owner is None:
            await self.app(scope, receive, send)
            return
        if not key or len(key) > MAX_KEY_CHARS or not _KEY_CHARS.match(key):
            await _error(send, 400, "invalid_input", f"{HEADER} must be 1 to {MAX_KEY_CHARS} visible ASCII characters")
            return
        try:
            body = await _read_body(receive)
        except HTTPException as exc:  # the body limit, met while reading
            await _error(send, exc.status_code, getattr(exc, "code", "payload_too_large"), str(exc.detail))
            return
        mark = fingerprint(scope["method"], scope["path"], scope.get("query_string", b""), body)
        with self._waiters.counted((owner, key)) as lock:
            async with lock:
                await self._once(scope, receive, send, owner, key, mark, body)

    def _owner(self, scope: Scope, user: str) -> str | None:
        bearer = _header(scope, b"authorization")
        raw = bearer[7:].strip() if bearer and bearer[:7].lower() == "bearer " else _header(scope, b"x-api-key")
        api_key = self._keys.authenticate(raw)
        if api_key is None or not api_key.may(user):
            return None
        return json.dumps([api_key.id, user])

    async def _once(
        self, scope: Scope, receive: Receive, send: Send, owner: str, key: str, mark: str, body: bytes
    ) -> None:
        now = time.time()
        try:
            store = self._store()
            saved: SavedRequest | None = await anyio.to_thread.run_sync(
                lambda: store.claim_request(
                    owner,
                    key,
                    mark,
                    now=now,
                    keep=KEEP_SECONDS,
                    lease=LEASE_SECONDS,
                    cap=PER_OWNER,
                )
            )
        except AnchorMemError as exc:
            status, code = classify(exc)
            await _error(send, status, code, public_message(exc, code))
            return
        if saved is not None:
            await _answer_saved(send, saved, mark)
            return
        try:
            answer = await self._run(scope, receive, send, body)
        except BaseException:  # the request failed (or was cancelled): a retry may run it again
            with anyio.CancelScope(shield=True), suppress(AnchorMemError):
                await anyio.to_thread.run_sync(store.release_request, owner, key)
            raise
        try:
            if answer is not None and 200 <= answer["status"] < 300:
                await anyio.to_thread.run_sync(store.finish_request, owner, key, json.dumps(answer))
            else:
                await anyio.to_thread.run_sync(store.release_request, owner, key)
        except AnchorMemError as exc:  # the response is sent; a retry finds the claim until its lease ends
            log.error(
                "storing the response of %s %s for its Idempotency-Key failed: %s", scope["method"], scope["path"], exc
            )

    async def _run(self, scope: Scope, receive: Receive, send: Send, body: bytes) -> dict[str, Any] | None:
        """Run the request with its (already read) body; its response is sent on and returned."""
        answer: dict[str, Any] = {"status": 0, "headers": [], "body": ""}
        chunks: list[bytes] = []
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # after the body: only the client's disconnect comes
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = int(message["status"])
                answer["headers"] = [
                    [k.decode("latin-1"), v.decode("latin-1")]
                    for k, v in message.get("headers", [])
                    if k.lower() in _KEPT_HEADERS
                ]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        await self.app(scope, replay, capture)
        answer["body"] = b"".join(chunks).decode("utf-8", "replace")
        return answer if answer["status"] else None


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


async def _answer_saved(send: Send, saved: SavedRequest, mark: str) -> None:
    if saved.fingerprint != mark:
        await _error(
            send,
            422,
            "idempotency_key_reused",
            f"this {HEADER} was used for a different request (method, path or body); use a new key for a new request",
        )
        return
    if saved.response is None:
        await _error(
            send,
            409,
            "idempotency_in_progress",
            f"a request with this {HEADER} is still running; retry after it finished to get its response",
        )
        return
    answer = json.loads(saved.response)
    body = str(answer["body"]).encode("utf-8")
    headers = [(str(k).encode("latin-1"), str(v).encode("latin-1")) for k, v in answer["headers"]]
    await _send(send, int(answer["status"]), body, [*headers, (REPLAYED.lower().encode(), b"true")])


async def _error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(error_body(code, message)).encode()
    await _send(send, status, body, [(b"content-type", b"application/json")])


async def _send(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [h for h in headers if h[0].lower() != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
