"""Unstorable or unbounded input is refused at the boundary with 400 ``invalid_input`` (REST) or an
InputError (Python), on SQLite and PostgreSQL, and leaves the memory as it was: NUL bytes and lone
surrogates in any field, control characters in labels and user ids, over-long fields, too many
LoCoMo turns, duplicate ``dia_id``s, unknown retrieval variants."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from tests.fixtures import SESSION_1, locomo_sample, messages
from tests.pg_server import PgServer

A = {"Authorization": "Bearer key-alice"}
ADMIN = {"Authorization": "Bearer key-admin"}
KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-admin": []}, admin=["key-admin"])
BACKENDS = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database("bound")
    yield url
    server.drop_database(url)


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    with Memory(Settings.load(env={}, store=location, embed__backend="hash"), embedder=HashEmbedder()) as m:
        yield m


@pytest.fixture
def client(mem: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(mem, KEYS)) as c:
        assert c.post("/v1/users/alice/memories", json={"messages": messages(SESSION_1)}, headers=A).status_code == 200
        yield c


def _msg(**extra: Any) -> dict[str, Any]:
    return {"messages": [{"speaker": "Ana", "text": "a new turn", "session": "9", **extra}]}


def _locomo(turn: dict[str, Any] | None = None, **conv: Any) -> dict[str, Any]:
    sample = copy.deepcopy(locomo_sample("s-1"))
    if turn is not None:
        sample["conversation"]["session_1"][0].update(turn)
    sample["conversation"].update(conv)
    return {"conversation": sample, "run_id": "r"}


def _duplicate_dia_id() -> dict[str, Any]:
    body = _locomo()
    turns = body["conversation"]["conversation"]["session_1"]
    turns[1]["dia_id"] = turns[0]["dia_id"]
    return body


def _post(client: TestClient, path: str, body: dict[str, Any]) -> httpx.Response:
    """JSON as a client sends it: ASCII with \\u escapes, so a lone surrogate arrives as such."""
    return client.post(path, content=json.dumps(body), headers={**A, "Content-Type": "application/json"})


BAD_ADDS: dict[str, tuple[dict[str, Any], str]] = {
    "NUL in id": (_msg(id="t\x00"), "'id' contains a NUL byte"),
    "NUL in session": (_msg(session="9\x00"), "'session' contains a NUL byte"),
    "NUL in timestamp": (_msg(timestamp="2024\x00"), "'timestamp' contains a NUL byte"),
    "NUL in date": (_msg(date="2024\x00"), "'date' contains a NUL byte"),
    "NUL in image_caption": (_msg(image_caption="a dog\x00"), "'image_caption' contains a NUL byte"),
    "CRLF in session": (_msg(session="9\r\n"), "'session' contains a control character"),
    "lone surrogate in text": (_msg(text="hi \ud800"), "'text' contains a lone surrogate"),
    "lone surrogate in a caption": (_msg(image_caption="\udc00"), "'image_caption' contains a lone surrogate"),
    "1 MB date": (_msg(date="x" * 1_000_000), "'date' is 1,000,000 characters; the limit is 256"),
    "1 MB image_caption": (_msg(image_caption="x" * 1_000_000), "'image_caption' is 1,000,000 characters"),
    "NUL in dia_id": (_locomo({"dia_id": "D1:1\x00"}), "'dia_id' contains a NUL byte"),
    "NUL in blip_caption": (_locomo({"blip_caption": "dog\x00"}), "'blip_caption' contains a NUL byte"),
    "NUL in a LoCoMo date": (_locomo(session_1_date_time="May\x00"), "'session_1_date_time' contains a NUL byte"),
    "1 MB LoCoMo date": (_locomo(session_1_date_time="x" * 1_000_000), "'session_1_date_time' is 1,000,000"),
    "duplicate dia_id": (_duplicate_dia_id(), "duplicate dia_id 'D1:1'"),
    "20,001 LoCoMo turns": (
        _locomo(session_1=[{"speaker": "A", "text": "t"}] * 20_001),
        "turns; the limit is 20,000 per request",
    ),
}


@BACKENDS
@pytest.mark.parametrize("case", sorted(BAD_ADDS))
def test_bad_adds_are_400_and_change_nothing(client: TestClient, case: str) -> None:
    body, message = BAD_ADDS[case]
    before = client.get("/v1/users/alice/memories/turns", headers=A).json()
    r = _post(client, "/v1/users/alice/memories", body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "invalid_input" and message in r.json()["error"]["message"]
    assert client.get("/v1/users/alice/memories/turns", headers=A).json() == before
    assert client.get("/v1/users/alice/stats", params={"run_id": "r"}, headers=A).status_code == 404


@BACKENDS
@pytest.mark.parametrize("selector", ["session", "turn", "context"])
def test_delete_selector_with_nul_is_400(client: TestClient, selector: str) -> None:
    before = client.get("/v1/users/alice/stats", headers=A).json()
    r = client.delete("/v1/users/alice/memories", params={selector: "1\x00"}, headers=A)
    assert r.status_code == 400 and "NUL" in r.json()["error"]["message"], r.text
    assert client.get("/v1/users/alice/stats", headers=A).json() == before


@BACKENDS
def test_search_refuses_unknown_variant_and_surrogate_query(client: TestClient) -> None:
    r = client.post("/v1/users/alice/search", json={"query": "dog", "variant": "nope"}, headers=A)
    assert r.status_code in (400, 422) and "unknown retrieval variant" in r.json()["error"]["message"], r.text
    r = _post(client, "/v1/users/alice/search", {"query": "dog \ud800"})
    assert r.status_code == 422 and "unicode" in r.json()["error"]["message"], r.text  # the schema refuses it
    with pytest.raises(InputError, match="lone surrogate"):
        client.app.state.service.memory.search("dog \ud800", user_id="alice")


@BACKENDS
@pytest.mark.parametrize("user", ["a\r\nb", "a\nb", "   ", "x" * 10_000, "tab\there"])
def test_bad_user_ids_are_refused_on_every_path(client: TestClient, mem: Memory, user: str) -> None:
    path = f"/v1/users/{quote(user, safe='')}"
    r = client.post(f"{path}/memories", json={"messages": messages(SESSION_1)}, headers=ADMIN)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_input", r.text
    for method, suffix in (
        ("GET", "/stats"),
        ("GET", "/history"),
        ("GET", "/export"),
        ("GET", "/memories/turns"),
        ("DELETE", "/memories?all=true"),
    ):
        r = client.request(method, path + suffix, headers=ADMIN)
        assert r.status_code == 400, (suffix, r.text)
    with pytest.raises(InputError):
        mem.add(messages(SESSION_1), user_id=user)
    assert [s.user_id for s in mem.users()] == ["alice"]


def test_python_api_refuses_the_same(memory: Memory) -> None:
    memory.add(messages(SESSION_1), user_id="u")
    with pytest.raises(InputError, match="'id' contains a NUL byte"):
        memory.add([{"speaker": "A", "text": "x", "id": "a\x00"}], user_id="u")
    with pytest.raises(InputError, match="session"):
        memory.delete(user_id="u", session="1\x00")
    for bad in ({"k": 0}, {"k": -5}, {"max_contexts": 0}, {"variant": "nope"}):
        with pytest.raises(InputError):
            memory.search("dog", user_id="u", **bad)
    assert memory.stats(user_id="u").turns == len(SESSION_1)
