"""Safe retries of the REST writes: an ``Idempotency-Key`` runs a write once and answers its retries from
the stored response, per API key and user, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import IngestReport
from anchormem.server.app import create_app
from anchormem.server.idempotency import fingerprint
from anchormem.server.keys import KeyRing
from anchormem.store.factory import open_store
from tests.fixtures import SESSION_1, SESSION_2, messages

BOTH = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)

KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob"], "key-admin": []}, admin=["key-admin"])
ALICE = {"Authorization": "Bearer key-alice"}
ADMIN = {"X-API-Key": "key-admin"}
BOB = {"Authorization": "Bearer key-bob"}
ADD = "/v1/users/alice/memories"


def _memory(location: str) -> Memory:
    return Memory(Settings.load(env={}, store=location, embed__backend="hash"), embedder=HashEmbedder())


class Counted:
    """``memory.add`` counting its runs, optionally held at its start until ``go`` is set."""

    def __init__(self, memory: Memory, hold: bool = False) -> None:
        self.runs = 0
        self.started = threading.Event()
        self.go = threading.Event()
        if not hold:
            self.go.set()
        self._add = memory.add
        memory.add = self  # type: ignore[method-assign]

    def __call__(self, *args: Any, **kwargs: Any) -> IngestReport:
        self.runs += 1
        self.started.set()
        assert self.go.wait(60), "never released"
        return self._add(*args, **kwargs)


@pytest.fixture
def memory(location: str) -> Iterator[Memory]:
    with _memory(location) as mem:
        yield mem


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(memory, KEYS)) as c:
        yield c


def _add(client: TestClient, key: str | None, body: Any, headers: dict[str, str] = ALICE) -> httpx.Response:
    extra = {"Idempotency-Key": key} if key else {}
    return client.post(ADD, content=json.dumps(body), headers={**headers, **extra, "Content-Type": "application/json"})


@BOTH
def test_a_retry_gets_the_first_response_and_runs_nothing(client: TestClient, memory: Memory) -> None:
    adds = Counted(memory)
    body = {"messages": messages(SESSION_1, "1")}
    first = _add(client, "add-1", body)
    assert first.status_code == 200 and first.json()["turns_added"] == len(SESSION_1)
    assert "idempotent-replayed" not in first.headers
    reordered = {"messages": [dict(reversed(list(m.items()))) for m in body["messages"]]}  # same JSON content
    again = _add(client, "add-1", reordered)
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content and adds.runs == 1  # a second run would report 0 turns added
    without = _add(client, None, body)
    assert without.json()["turns_added"] == 0 and adds.runs == 2


@BOTH
def test_the_same_key_for_another_request_is_refused(client: TestClient, memory: Memory) -> None:
    assert _add(client, "k", {"messages": messages(SESSION_1, "1")}).status_code == 200
    other = _add(client, "k", {"messages": messages(SESSION_2, "2")})
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert len(memory.turns(user_id="alice")) == len(SESSION_1)
    elsewhere = client.delete(ADD, params={"session": "1"}, headers={**ALICE, "Idempotency-Key": "k"})
    assert elsewhere.status_code == 422 and len(memory.turns(user_id="alice")) == len(SESSION_1)


@BOTH
def test_keys_belong_to_the_api_key_and_the_user(client: TestClient, memory: Memory) -> None:
    adds = Counted(memory)
    body = {"messages": messages(SESSION_1, "1")}
    assert _add(client, "shared", body).json()["turns_added"] == len(SESSION_1)
    by_admin = _add(client, "shared", body, ADMIN)  # another API key: its own record, the add runs
    assert "idempotent-replayed" not in by_admin.headers and by_admin.json()["turns_added"] == 0
    bob = client.post(
        "/v1/users/bob/memories",
        json={"messages": messages(SESSION_2, "2")},
        headers={**BOB, "Idempotency-Key": "shared"},
    )
    assert bob.status_code == 200 and bob.json()["turns_added"] == len(SESSION_2) and adds.runs == 3
    refused = _add(client, "shared", body, BOB)  # bob's key may not touch alice: 403, nothing replayed
    assert refused.status_code == 403 and adds.runs == 3


@BOTH
def test_update_and_delete_retries_are_answered_once(client: TestClient, memory: Memory) -> None:
    first = messages(SESSION_1, "1")
    first[2]["id"] = "walk"
    assert _add(client, None, {"messages": first}).status_code == 200
    put = {"text": "Pico hates the snow now."}
    updated = client.put(f"{ADD}/turns/walk", json=put, headers={**ALICE, "Idempotency-Key": "u1"})
    assert updated.status_code == 200 and updated.json()["updated"] is True
    again = client.put(f"{ADD}/turns/walk", json=put, headers={**ALICE, "Idempotency-Key": "u1"})
    assert again.content == updated.content and again.headers["idempotent-replayed"] == "true"
    assert [h.op for h in memory.history(user_id="alice")] == ["add", "update"]

    gone = client.delete(ADD, params={"turn": "walk"}, headers={**ALICE, "Idempotency-Key": "d1"})
    assert gone.status_code == 200 and gone.json()["turns"] == 1
    retried = client.delete(ADD, params={"turn": "walk"}, headers={**ALICE, "Idempotency-Key": "d1"})
    assert retried.status_code == 200 and retried.content == gone.content  # not 404: answered, not run
    assert client.delete(ADD, params={"turn": "walk"}, headers=ALICE).status_code == 404


@BOTH
def test_a_failed_request_leaves_its_key_free(client: TestClient) -> None:
    bad = _add(client, "k", {"messages": [{"speaker": "Ana"}]})
    assert bad.status_code == 400
    good = _add(client, "k", {"messages": messages(SESSION_1, "1")})
    assert good.status_code == 200 and good.json()["turns_added"] == len(SESSION_1)


@BOTH
def test_a_malformed_key_is_refused(client: TestClient) -> None:
    for key in ("x" * 256, "with space", "é"):
        r = client.post(
            ADD,
            json={"messages": messages(SESSION_1)},
            headers={**ALICE, "Idempotency-Key": key.encode()},
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_input", key


@BOTH
def test_concurrent_requests_with_one_key_run_once(client: TestClient, memory: Memory) -> None:
    adds = Counted(memory, hold=True)
    body = {"messages": messages(SESSION_1, "1")}
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(_add, client, "same", body)
        assert adds.started.wait(60)
        second = pool.submit(_add, client, "same", body)  # waits for the first, then gets its answer
        adds.go.set()
        a, b = first.result(60), second.result(60)
    assert a.status_code == b.status_code == 200 and a.content == b.content and adds.runs == 1
    assert b.headers["idempotent-replayed"] == "true"


@BOTH
def test_a_key_still_running_in_another_process_answers_409(location: str, memory: Memory) -> None:
    """Two apps over one store stand for two server processes: the second sees the first's claim."""
    adds = Counted(memory, hold=True)
    body = {"messages": messages(SESSION_1, "1")}
    with (
        _memory(location) as other,
        TestClient(create_app(memory, KEYS)) as one,
        TestClient(create_app(other, KEYS)) as two,
    ):
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(_add, one, "busy", body)
            assert adds.started.wait(60)
            busy = _add(two, "busy", body)
            adds.go.set()
            assert first.result(60).status_code == 200
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "idempotency_in_progress"
        replayed = _add(two, "busy", body)
        assert replayed.headers["idempotent-replayed"] == "true" and replayed.content == first.result().content


@BOTH
def test_store_records_expire_are_capped_and_released(location: str) -> None:
    store = open_store(location)
    claim: Callable[..., Any] = store.claim_request
    try:
        assert claim("o", "k", "f", now=1000.0, keep=100.0, lease=50.0, cap=2) is None
        pending = claim("o", "k", "f", now=1010.0, keep=100.0, lease=50.0, cap=2)
        assert pending is not None and pending.response is None and pending.fingerprint == "f"
        store.finish_request("o", "k", '{"status": 200}')
        done = claim("o", "k", "g", now=1020.0, keep=100.0, lease=50.0, cap=2)
        assert done is not None and done.response == '{"status": 200}' and done.fingerprint == "f"
        assert claim("other", "k", "f", now=1020.0, keep=100.0, lease=50.0, cap=2) is None  # owners are apart
        assert claim("o", "k", "f", now=1101.0, keep=100.0, lease=50.0, cap=2) is None  # expired: claimed anew
        assert claim("o", "k2", "f", now=1200.0, keep=1e6, lease=50.0, cap=2) is None
        assert claim("o", "k2", "f", now=1260.0, keep=1e6, lease=50.0, cap=2) is None  # abandoned claim taken over
        store.release_request("o", "k2")
        assert claim("o", "k2", "f", now=1261.0, keep=1e6, lease=1e6, cap=2) is None  # released: free again
        for i in range(4):  # answered records beyond the cap go, oldest first
            assert claim("c", f"k{i}", "f", now=2000.0 + i, keep=1e6, lease=1e6, cap=2) is None
            store.finish_request("c", f"k{i}", "{}")
        assert claim("c", "k0", "f", now=2010.0, keep=1e6, lease=1e6, cap=2) is None
        assert claim("c", "k3", "f", now=2011.0, keep=1e6, lease=1e6, cap=2) is not None
    finally:
        store.close()


def test_fingerprint_reads_json_by_content() -> None:
    a = fingerprint("POST", "/p", b"", b'{"a": 1, "b": [1, 2]}')
    assert a == fingerprint("POST", "/p", b"", b'{"b":[1,2],"a":1}')
    assert a != fingerprint("POST", "/p", b"x=1", b'{"a": 1, "b": [1, 2]}')
    assert a != fingerprint("PUT", "/p", b"", b'{"a": 1, "b": [1, 2]}')
    assert a != fingerprint("POST", "/p", b"", b'{"a": 2, "b": [1, 2]}')


@pytest.mark.parametrize("location", ["sqlite"], indirect=True)
def test_a_body_over_the_limit_is_refused_before_anything_is_claimed(memory: Memory) -> None:
    big = json.dumps({"messages": messages(SESSION_1 * 20, "1")}).encode()

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is met while the body is read
        yield from (big[i : i + 512] for i in range(0, len(big), 512))

    with TestClient(create_app(memory, KEYS, max_body=2048)) as small:
        r = small.post(ADD, content=chunks(), headers={**ALICE, "Idempotency-Key": "big"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"
        ok = small.post(
            ADD, json={"messages": messages(SESSION_1[:1], "1")}, headers={**ALICE, "Idempotency-Key": "big"}
        )
        assert ok.status_code == 200 and ok.json()["turns_added"] == 1
