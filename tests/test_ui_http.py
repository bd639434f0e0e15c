"""The inspector over HTTP (no browser): its page and static files, and the read-only ``inspect``
endpoints — timeline, record ties, event graph, search explanation, delete dry run, size — with the
same keys and per-user isolation as the rest of the API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from anchormem.server.ui.pages import STATIC
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, add_user_and_coach_budget, messages

A = {"Authorization": "Bearer key-alice"}
B = {"Authorization": "Bearer key-bob"}
ADMIN = {"Authorization": "Bearer key-admin"}
KEYS = KeyRing.from_raw({"key-alice": ["alice"], "key-bob": ["bob"], "key-admin": []}, admin=["key-admin"])


def conversation() -> list[dict[str, str]]:
    return messages(SESSION_1, session="1", stamp="1:56 pm on 8 May, 2023") + messages(
        SESSION_2, session="2", stamp="7:30 pm on 20 May, 2023"
    )


@pytest.fixture
def client(memory: Memory) -> Iterator[TestClient]:
    with TestClient(create_app(memory, KEYS)) as c:
        r = c.post("/v1/users/alice/memories", json={"messages": conversation()}, headers=A)
        assert r.status_code == 200, r.text
        yield c


def test_page_and_static_files_are_served_with_a_strict_policy(client: TestClient) -> None:
    r = client.get("/ui/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    for name in STATIC:
        assert f"/ui/static/{name}" in r.text
        served = client.get(f"/ui/static/{name}")
        assert served.status_code == 200 and served.headers["content-type"].startswith(STATIC[name])
        assert "innerHTML" not in served.text and "eval(" not in served.text  # data goes in as text only
    assert client.get("/ui", follow_redirects=False).status_code == 307
    assert client.get("/ui/static/../keys.py").status_code == 404
    assert client.get("/ui/static/secret.txt").status_code == 404
    assert "/ui/" not in client.get("/openapi.json").json()["paths"]  # the page is not part of the API


def test_key_info_lists_only_the_keys_users(client: TestClient) -> None:
    client.post("/v1/users/bob/memories", json={"messages": messages(SESSION_2, session="9")}, headers=B)
    alice = client.get("/v1/inspect/key", headers=A).json()
    assert alice["admin"] is False and alice["users"] == ["alice"]
    assert {s["user_id"] for s in alice["scopes"]} == {"alice"}
    assert "anchormem" in alice["variants"] and alice["default_variant"] == "anchormem"
    admin = client.get("/v1/inspect/key", headers=ADMIN).json()
    assert admin["admin"] is True and {s["user_id"] for s in admin["scopes"]} == {"alice", "bob"}
    assert client.get("/v1/inspect/key").status_code == 401


def test_sessions_by_date_with_filters_and_pages(client: TestClient) -> None:
    page = client.get("/v1/users/alice/inspect/sessions", headers=A).json()
    assert [s["session"] for s in page["items"]] == ["1", "2"]
    assert page["items"][0]["day"] == "2023-05-08" and page["items"][0]["turns"] == 5
    assert page["counts"]["turns"] == 9 and page["speakers"] == ["Ana", "Ben"]
    assert (page["first_day"], page["last_day"]) == ("2023-05-08", "2023-05-20")

    def sessions(**query: Any) -> list[str]:
        r = client.get("/v1/users/alice/inspect/sessions", params=query, headers=A)
        assert r.status_code == 200, r.text
        return [s["session"] for s in r.json()["items"]]

    assert sessions(date_from="2023-05-10") == ["2"]
    assert sessions(date_to="2023-05-10") == ["1"]
    assert sessions(session="2") == ["2"]
    assert sessions(speaker="Nobody") == []
    assert sessions(limit=1) == ["1"] and sessions(limit=1, offset=1) == ["2"]
    bad = client.get("/v1/users/alice/inspect/sessions", params={"date_from": "May"}, headers=A)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_input"


def test_session_turns_with_their_contexts_facts_and_events(client: TestClient) -> None:
    r = client.get("/v1/users/alice/inspect/session", params={"session": "1", "limit": 2}, headers=A)
    assert r.status_code == 200, r.text
    page = r.json()
    assert page["total"] == 5 and page["next_offset"] == 2 and len(page["items"]) == 2
    assert page["items"][0]["text"].startswith("I finally adopted a dog")
    shown = {c for t in page["items"] for c in t["context_ids"]}
    assert {c["id"] for c in page["contexts"]} == shown
    assert all(f["context_id"] == c["id"] for c in page["contexts"] for f in c["facts"])
    ben = client.get("/v1/users/alice/inspect/session", params={"session": "1", "speaker": "Ben"}, headers=A).json()
    assert {t["speaker"] for t in ben["items"]} == {"Ben"} and ben["total"] == 2
    missing = client.get("/v1/users/alice/inspect/session", params={"session": "7"}, headers=A)
    assert missing.status_code == 404


def test_record_with_its_ties(client: TestClient) -> None:
    context = client.get("/v1/users/alice/memories/contexts", headers=A).json()["items"][0]
    r = client.get(f"/v1/users/alice/inspect/record/{context['id']}", headers=A).json()
    assert r["kind"] == "context" and [t["id"] for t in r["turns"]] == context["turn_ids"]
    fact = r["record"]["facts"][0]
    f = client.get(f"/v1/users/alice/inspect/record/{fact['id']}", headers=A).json()
    assert f["kind"] == "fact" and f["contexts"][0]["id"] == context["id"] and f["record"]["day"] == "2023-05-08"
    turn = client.get(f"/v1/users/alice/inspect/record/{context['turn_ids'][0]}", headers=A).json()
    assert turn["kind"] == "turn" and context["id"] in turn["record"]["context_ids"]
    assert client.get("/v1/users/alice/inspect/record/c-nope", headers=A).status_code == 404


def test_graph_lists_events_with_their_facts_sessions_and_dates(client: TestClient) -> None:
    again = messages([("Ana", "I am painting a portrait of Pico for my grandmother!")], session="3")
    r = client.post("/v1/users/alice/memories", json={"messages": again}, headers=A)  # an offline event
    assert r.status_code == 200, r.text
    events = client.get("/v1/users/alice/memories/events", headers=A).json()
    page = client.get("/v1/users/alice/inspect/graph", params={"limit": 2}, headers=A).json()
    assert page["total"] == events["total"] > 0 and len(page["items"]) == min(2, events["total"])
    for event in page["items"]:
        assert event["facts"] and all(f["session"] in event["sessions"] for f in event["facts"])
        assert all(f["day"] for f in event["facts"])
    assert {s["session"] for s in page["sessions"]} == {s for e in page["items"] for s in e["sessions"]}


def test_search_explains_every_context_and_gives_the_prompt_block(client: TestClient) -> None:
    body = {"query": "What is the name of Ana's dog?", "max_contexts": 3}
    r = client.post("/v1/users/alice/inspect/search", json=body, headers=A)
    assert r.status_code == 200, r.text
    out = r.json()
    plain = client.post("/v1/users/alice/search", json=body, headers=A).json()
    assert [c["context"]["id"] for c in out["contexts"]] == [c["context"]["id"] for c in plain["contexts"]]
    assert out["mode"] == "hybrid" and out["variant"] == "anchormem"
    for hit in out["contexts"]:
        x = hit["explanation"]
        assert x["score"] == pytest.approx(hit["score"], abs=1e-9)
        assert sum(x["contributions"].values()) == pytest.approx(hit["score"], abs=1e-9)
        assert {"anchor", "lexical", "shared_turns"} <= set(x["contributions"])
        assert x["picked_at"] is not None and x["relevance_rank"] >= 1
        assert x["adjustments"] == hit["adjustments"]
    marks = {c["context"]["id"]: c["latest"] for c in out["contexts"]}
    assert marks == {c["context"]["id"]: c["latest"] for c in plain["contexts"]}, "the marks of the same search"
    for c in out["contexts"]:
        assert bool(c["newer"]) == (c["latest"] is False)
    first = min(out["contexts"], key=lambda c: c["explanation"]["relevance_rank"])  # the most relevant context
    text = first["context"]["text"]
    anchored = [text[s["start"] : s["end"]] for s in first["spans"] if s["kind"] == "anchor" and s["anchor"] == 0]
    assert "I finally adopted a dog from the shelter yesterday, his name is Pico." in anchored
    assert "dog" in [text[s["start"] : s["end"]] for s in first["spans"] if s["kind"] == "term"]
    prompt = out["prompt"]
    assert prompt["chars"] == len(prompt["text"]) and "DATE: 1:56 pm on 8 May, 2023" in prompt["text"]
    assert out["turn_ids"] == plain["turn_ids"]

    bm25 = client.post("/v1/users/alice/inspect/search", json={**body, "variant": "bm25"}, headers=A).json()
    assert bm25["mode"] == "bm25" and bm25["events"] == []
    assert [c["explanation"]["relevance_rank"] for c in bm25["contexts"]] != []
    bad = client.post("/v1/users/alice/inspect/search", json={**body, "variant": "nope"}, headers=A)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "validation_error"


def test_delete_preview_matches_what_the_delete_then_removes(client: TestClient) -> None:
    before = client.get("/v1/users/alice/stats", headers=A).json()
    preview = client.get("/v1/users/alice/inspect/delete-preview", params={"session": "1"}, headers=A).json()
    assert preview["target"] == {"session": "1"} and preview["turns"] == 5
    assert client.get("/v1/users/alice/stats", headers=A).json() == before  # a dry run deletes nothing
    assert all(preview["labels"][t] for t in preview["turn_ids"])
    report = client.delete("/v1/users/alice/memories", params={"session": "1"}, headers=A).json()
    for kind in ("turns", "contexts", "facts", "events"):
        assert report[kind] == preview[kind], kind
    assert report["cache_entries_forgotten"] == preview["cache_entries"] == 0
    everything = client.get("/v1/users/alice/inspect/delete-preview", params={"all": "true"}, headers=A).json()
    assert everything["turns"] == 4 and everything["target"] == {"all": True}
    two = client.get("/v1/users/alice/inspect/delete-preview", params={"all": "true", "session": "2"}, headers=A)
    assert two.status_code == 400


def test_delete_preview_counts_cached_llm_responses(tmp_path: Path) -> None:
    settings = Settings.load(env={}, store=str(tmp_path / "mem.db"), embed__backend="hash")
    fake = FakeLLM(llm_responder)
    from anchormem.llm.cache import CachedLLM

    with (
        CachedLLM(fake, tmp_path / "cache.db") as cached,
        Memory(settings, embedder=HashEmbedder(), llm=cached) as memory,
        TestClient(create_app(memory, KEYS)) as client,
    ):
        client.post("/v1/users/alice/memories", json={"messages": conversation()}, headers=A)
        preview = client.get("/v1/users/alice/inspect/delete-preview", params={"session": "1"}, headers=A).json()
        assert preview["cache_entries"] > 0
        report = client.delete("/v1/users/alice/memories", params={"session": "1"}, headers=A).json()
        assert report["cache_entries_forgotten"] == preview["cache_entries"]


def test_size_counts_this_memory_and_shows_the_file_to_admins_only(client: TestClient) -> None:
    mine = client.get("/v1/users/alice/inspect/size", headers=A).json()
    assert mine["text_bytes"] > 0 and mine["vector_bytes"] > 0 and mine["store_file_bytes"] is None
    admin = client.get("/v1/users/alice/inspect/size", headers=ADMIN).json()
    assert admin["store_file_bytes"] > admin["total_bytes"] == mine["total_bytes"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/users/alice/inspect/sessions"),
        ("GET", "/v1/users/alice/inspect/session?session=1"),
        ("GET", "/v1/users/alice/inspect/record/x"),
        ("GET", "/v1/users/alice/inspect/graph"),
        ("POST", "/v1/users/alice/inspect/search"),
        ("GET", "/v1/users/alice/inspect/delete-preview?all=true"),
        ("GET", "/v1/users/alice/inspect/size"),
    ],
)
def test_every_inspect_endpoint_refuses_other_users_keys(client: TestClient, method: str, path: str) -> None:
    body = {"query": "dog"} if method == "POST" else None
    assert client.request(method, path, json=body).status_code == 401
    r = client.request(method, path, json=body, headers=B)
    assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert "Pico" not in r.text
    assert client.request(method, path, json=body, headers=ADMIN).status_code in (200, 404)


def test_timeline_follows_writes(client: TestClient) -> None:
    """The browsing index is rebuilt when the memory changes, never served stale."""
    first = client.get("/v1/users/alice/inspect/sessions", headers=A).json()
    assert first["counts"]["sessions"] == 2
    more = messages([("Ana", "Pico met a cat today.")], session="3", stamp="2023-06-01")
    client.post("/v1/users/alice/memories", json={"messages": more}, headers=A)
    assert client.get("/v1/users/alice/inspect/sessions", headers=A).json()["counts"]["sessions"] == 3
    client.delete("/v1/users/alice/memories", params={"session": "3"}, headers=A)
    assert client.get("/v1/users/alice/inspect/sessions", headers=A).json()["counts"]["sessions"] == 2


def test_the_inspector_explains_the_search_that_runs_under_filters(memory: Memory, client: TestClient) -> None:
    """The inspector's search is /search's search (scope, filters, settings), traced: a metadata filter
    narrows both alike (before, the inspector dropped the filters and explained another retrieval)."""
    add_user_and_coach_budget(memory)
    body = {"query": "budget", "filters": {"topic": "work"}}
    plain = client.post("/v1/users/alice/search", json=body, headers=A).json()
    out = client.post("/v1/users/alice/inspect/search", json=body, headers=A)
    assert out.status_code == 200, out.text
    ids = [c["context"]["id"] for c in out.json()["contexts"]]
    assert ids == [c["context"]["id"] for c in plain["contexts"]] and len(ids) == 1
    assert [c["explanation"]["context_id"] for c in out.json()["contexts"]] == ids
