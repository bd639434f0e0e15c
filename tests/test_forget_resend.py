"""A forgotten message stays forgotten: a history re-sent after a delete stores nothing of the deleted
messages, on SQLite and PostgreSQL and through REST, and the store keeps no word of them (only keyed hashes);
``readd=True`` stores them again on purpose."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing

ADMIN = "amk_admin_for_forget_resend"
HEADERS = {"Authorization": f"Bearer {ADMIN}"}

CHAT = [
    {"role": "user", "content": "My dog is called Rex.", "session": "s1"},
    {"role": "assistant", "content": "Rex is a fine name.", "session": "s1"},
    {"role": "user", "content": "I moved to Oslo in March.", "session": "s2"},
    {"role": "assistant", "content": "Oslo is lovely in spring.", "session": "s2"},
]
DELETED_WORDS = ("Oslo", "March")


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    settings = Settings.load(env={}, store=location, embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as memory:
        yield memory


def _texts(memory: Memory, user: str = "ana") -> list[str]:
    return [t.text for t in memory.turns(user_id=user)]


def _dump(memory: Memory) -> str:
    """Every row of every table of the store, as text."""
    store: Any = memory.store
    tables = [
        "turns",
        "contexts",
        "facts",
        "events",
        "history",
        "changes",
        "forgotten",
        "meta",
    ]
    return "\n".join(repr(store._q(f"SELECT * FROM {t}")) for t in tables)


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_a_resent_history_after_a_session_delete_stores_nothing_deleted(mem: Memory) -> None:
    assert mem.add(CHAT, user_id="ana").turns_added == 4
    deleted_ids = [t.id for t in mem.turns(user_id="ana") if t.session == "s2"]
    mem.delete(user_id="ana", session="s2")
    again = mem.add(CHAT, user_id="ana")
    assert again.turns_added == 0 and "2 messages deleted earlier" in again.notes[0]
    assert _texts(mem) == ["My dog is called Rex.", "Rex is a fine name."]
    assert not any(w in _dump(mem) for w in DELETED_WORDS)  # the record of the delete holds no words
    assert deleted_ids and all(i not in _dump(mem) for i in deleted_ids)  # nor their ids


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_a_resent_history_with_new_messages_stores_only_the_new_ones(mem: Memory) -> None:
    mem.add(CHAT, user_id="ana")
    mem.delete(user_id="ana", session="s2")
    newer = [*CHAT, {"role": "user", "content": "Rex learned to sit.", "session": "s3"}]
    report = mem.add(newer, user_id="ana")
    assert report.turns_added == 1
    assert _texts(mem) == ["My dog is called Rex.", "Rex is a fine name.", "Rex learned to sit."]


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_readd_stores_deleted_messages_on_purpose_and_a_later_delete_holds_again(mem: Memory) -> None:
    mem.add(CHAT, user_id="ana")
    mem.delete(user_id="ana", all=True)
    assert mem.add(CHAT, user_id="ana").turns_added == 0
    assert mem.add(CHAT, user_id="ana", readd=True).turns_added == 4
    assert mem.add(CHAT, user_id="ana").turns_added == 0  # stored: nothing new
    mem.delete(user_id="ana", session="s1")
    assert mem.add(CHAT, user_id="ana").turns_added == 0


@pytest.mark.parametrize("location", ["sqlite"], indirect=True)
def test_a_deleted_turn_stays_deleted_only_in_its_own_memory(mem: Memory) -> None:
    mem.add(CHAT, user_id="ana")
    mem.delete(user_id="ana", session="s2")
    assert mem.add(CHAT, user_id="bob").turns_added == 4  # another user sends the same words: stored
    assert mem.add(CHAT, user_id="ana", agent_id="helper").turns_added == 4  # and another scope of ana


@pytest.mark.parametrize("location", ["sqlite"], indirect=True)
def test_the_same_holds_through_rest(mem: Memory) -> None:
    keys = KeyRing.from_raw({ADMIN: []}, admin=[ADMIN])
    with TestClient(create_app(mem, keys)) as client:
        r = client.post("/v1/users/ana/memories", json={"messages": CHAT}, headers=HEADERS)
        assert r.status_code == 200 and r.json()["turns_added"] == 4
        assert client.delete("/v1/users/ana/memories?session=s2", headers=HEADERS).status_code == 200
        r = client.post("/v1/users/ana/memories", json={"messages": CHAT}, headers=HEADERS)
        assert r.status_code == 200 and r.json()["turns_added"] == 0 and "deleted earlier" in r.json()["notes"][0]
        r = client.post("/v1/users/ana/memories", json={"messages": CHAT, "readd": "yes"}, headers=HEADERS)
        assert r.status_code in (400, 422)
        assert len(_texts(mem)) == 2
        r = client.post("/v1/users/ana/memories", json={"messages": CHAT, "readd": True}, headers=HEADERS)
        assert r.status_code == 200 and r.json()["turns_added"] == 2
