"""API keys and cross-user isolation: on every endpoint, no key or a bad key is 401, another
user's key is 403 and changes nothing; keys are stored hashed and reloaded when the file changes."""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchormem.cli.main import main
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing, create_key, hash_key, revoke_key
from tests.fixtures import SESSION_1, messages

ALICE = {"Authorization": "Bearer key-alice"}
BOB = {"Authorization": "Bearer key-bob"}
ADMIN = {"X-API-Key": "key-admin"}
KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob", "carol"], "key-admin": []}, admin=["key-admin"])

# Every route under /v1/users/{user_id}: (method, path after the user, JSON body or None).
ENDPOINTS: list[tuple[str, str, Any]] = [
    ("POST", "/memories", {"messages": messages(SESSION_1[:3], session="9")}),
    ("POST", "/memories", {"messages": messages(SESSION_1[:3], session="8"), "background": True}),
    ("GET", "/jobs/{job}", None),
    ("POST", "/search", {"query": "What is the name of Ana's dog?"}),
    ("POST", "/answer", {"question": "What is the name of Ana's dog?"}),
    ("GET", "/memories/turns", None),
    ("GET", "/memories/facts?offset=1&limit=2", None),
    ("GET", "/records/{context}", None),
    ("PUT", "/memories/turns/{turn}", {"text": "Pico hates the snow now."}),
    ("DELETE", "/memories?all=true", None),
    ("DELETE", "/memories?session=1", None),
    ("GET", "/history", None),
    ("GET", "/export", None),
    ("GET", "/stats", None),
    ("GET", "/inspect/sessions", None),
    ("GET", "/inspect/session?session=1", None),
    ("GET", "/inspect/record/{context}", None),
    ("GET", "/inspect/graph", None),
    ("POST", "/inspect/search", {"query": "What is the name of Ana's dog?"}),
    ("GET", "/inspect/delete-preview?session=1", None),
    ("GET", "/inspect/size", None),
]


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(memory, KEYS)) as c:
        yield c


@pytest.fixture
def alice(client: TestClient) -> dict[str, str]:
    """Alice has a memory and a finished job; returns ids to put in paths."""
    r = client.post(
        "/v1/users/alice/memories", json={"messages": messages(SESSION_1), "background": True}, headers=ALICE
    )
    assert r.status_code == 202
    job = r.json()["id"]
    for _ in range(500):
        if client.get(f"/v1/users/alice/jobs/{job}", headers=ALICE).json()["status"] == "succeeded":
            break
    contexts = client.get("/v1/users/alice/memories/contexts", headers=ALICE).json()["items"]
    return {"job": job, "context": contexts[0]["id"], "turn": contexts[0]["turn_ids"][0]}


def snapshot(client: TestClient) -> dict[str, Any]:
    return {
        kind: client.get(f"/v1/users/alice/memories/{kind}", headers=ALICE).json()["items"]
        for kind in ("turns", "contexts", "facts", "events")
    }


def call(
    client: TestClient, method: str, path: str, body: Any, ids: dict[str, str], user: str, headers: dict[str, str]
) -> Any:
    return client.request(method, f"/v1/users/{user}" + path.format(**ids), json=body, headers=headers)


def test_every_user_route_is_covered() -> None:
    app = create_app(Memory(), KEYS)
    routes = {
        (m.upper(), path)
        for path, ops in app.openapi()["paths"].items()
        for m in ops
        if path.startswith("/v1/users/{user_id}")
    }
    covered = {
        (
            m,
            "/v1/users/{user_id}"
            + re.sub(r"/(turns|facts)$", "/{kind}", p.split("?")[0])
            .replace("{job}", "{job_id}")
            .replace("{context}", "{record_id}")
            .replace("{turn}", "{turn_id}"),
        )
        for m, p, _ in ENDPOINTS
    }
    assert routes == covered


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_isolation(client: TestClient, alice: dict[str, str], method: str, path: str, body: Any) -> None:
    before = snapshot(client)
    for headers, status, code in (
        ({}, 401, "unauthorized"),
        ({"Authorization": "Bearer wrong"}, 401, "unauthorized"),
        ({"X-API-Key": "key-alice "}, 401, "unauthorized"),
        (BOB, 403, "forbidden"),
    ):
        r = call(client, method, path, body, alice, "alice", headers)
        assert r.status_code == status, (headers, r.text)
        assert r.json()["error"]["code"] == code
    assert snapshot(client) == before  # bob changed and learned nothing

    # Bob on his own path cannot reach alice's job or records by id either.
    r = call(client, method, path, body, alice, "bob", BOB)
    if (method, path) == ("POST", "/search"):  # bob's own memory is empty: an empty result, nothing of alice's
        assert r.status_code == 200 and r.json()["contexts"] == [] and r.json()["turn_ids"] == [], r.text
    else:
        assert r.status_code not in (200, 202) or (method == "POST" and path == "/memories"), r.text
    assert snapshot(client) == before

    # Alice herself, and an admin key, get through the checks.
    for headers in (ALICE, ADMIN):
        r = call(client, method, path, body, alice, "alice", headers)
        assert r.status_code not in (401, 403), r.text


def test_bob_cannot_read_alices_job_through_his_own_path(client: TestClient, alice: dict[str, str]) -> None:
    r = client.get(f"/v1/users/bob/jobs/{alice['job']}", headers=BOB)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_a_key_may_hold_several_users(client: TestClient) -> None:
    for user in ("bob", "carol"):
        r = client.post(f"/v1/users/{user}/memories", json={"messages": messages(SESSION_1[:2])}, headers=BOB)
        assert r.status_code == 200
    assert client.get("/v1/users/dave/stats", headers=BOB).status_code == 403


def test_keys_file_stores_hashes_only_and_reloads(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    raw, key = create_key(path, ["alice"], note="test")
    text = path.read_text()
    assert raw not in text and hash_key(raw) in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    ring = KeyRing(path)
    found = ring.authenticate(raw)
    assert found is not None and found.may("alice") and not found.may("bob")

    raw2, _ = create_key(path, [], admin=True)
    admin = ring.authenticate(raw2)
    assert admin is not None and admin.may("anyone")
    revoke_key(path, key.id)
    assert ring.authenticate(raw) is None
    assert ring.authenticate("") is None and ring.authenticate(None) is None


def test_serve_key_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.json"
    assert main(["serve-key", "add", "--keys", str(path), "--user", "alice", "--user", "bob", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["key"].startswith("amk_") and created["users"] == ["alice", "bob"]
    assert main(["serve-key", "list", "--keys", str(path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [k["id"] for k in listed] == [created["id"]] and "sha256" not in listed[0]
    assert created["key"] not in path.read_text()
    assert main(["serve-key", "add", "--keys", str(path)]) == 1  # no user, not admin
    assert main(["serve-key", "revoke", created["id"], "--keys", str(path)]) == 0
    assert json.loads(path.read_text())["keys"] == []


def test_serve_refuses_a_missing_keys_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "serve",
                "--keys",
                str(tmp_path / "none.json"),
                "--store",
                str(tmp_path / "m.db"),
                "--embed-backend",
                "hash",
            ]
        )
        == 1
    )
    assert "keys file not found" in capsys.readouterr().err
