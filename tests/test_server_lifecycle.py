"""delete, history and export over the REST API (thin shells over Memory's lifecycle methods)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from tests.fixtures import SESSION_1, SESSION_2, messages

ALICE = {"Authorization": "Bearer ka"}
BOB = {"Authorization": "Bearer kb"}


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(memory, KeyRing.from_raw({"ka": ["alice"], "kb": ["bob"]}))) as c:
        body = {"messages": messages(SESSION_1, session="1") + messages(SESSION_2, session="2")}
        assert c.post("/v1/users/alice/memories", json=body, headers=ALICE).status_code == 200
        bob = {"messages": messages([("Zed", "My zebra is called Stripes."), ("Yan", "Nice zebra.")])}
        assert c.post("/v1/users/bob/memories", json=bob, headers=BOB).status_code == 200
        yield c


def test_delete_a_session_then_everything(client: TestClient) -> None:
    before = client.get("/v1/users/alice/stats", headers=ALICE).json()
    r = client.delete("/v1/users/alice/memories", params={"session": "1"}, headers=ALICE)
    assert r.status_code == 200, r.text
    assert r.json()["turns"] == len(SESSION_1)
    after = client.get("/v1/users/alice/stats", headers=ALICE).json()
    assert after["turns"] == before["turns"] - len(SESSION_1) and after["sessions"] == 1

    r = client.delete("/v1/users/alice/memories", params={"all": "true"}, headers=ALICE)
    assert r.status_code == 200, r.text
    assert client.get("/v1/users/alice/stats", headers=ALICE).status_code == 404
    assert client.get("/v1/users/bob/stats", headers=BOB).json()["turns"] == 2  # bob untouched


def test_delete_without_a_selector_is_rejected(client: TestClient) -> None:
    r = client.delete("/v1/users/alice/memories", headers=ALICE)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_input"


def test_history_records_adds_and_deletes(client: TestClient) -> None:
    client.delete("/v1/users/alice/memories", params={"session": "2"}, headers=ALICE)
    r = client.get("/v1/users/alice/history", headers=ALICE)
    assert r.status_code == 200, r.text
    items = r.json()["items"]
    assert {"add", "delete"} <= {e["op"] for e in items}
    assert all(e["scope"]["user_id"] == "alice" for e in items)
    assert len(client.get("/v1/users/alice/history", params={"limit": 1}, headers=ALICE).json()["items"]) == 1


def test_export_streams_only_this_users_records(client: TestClient) -> None:
    r = client.get("/v1/users/alice/export", headers=ALICE)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert records and all(isinstance(rec, dict) for rec in records)
    assert "Pico" in r.text and "zebra" not in r.text
