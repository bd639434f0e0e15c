"""Servers load what the first request would otherwise wait for (the store, the embedding model)
before they serve anything, and say so in the startup log."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed import factory
from anchormem.embed.hashing import HashEmbedder
from anchormem.embed.protocol import Vectors
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing


class LazyEmbedder(HashEmbedder):
    """Loads its "model" on the first embed, like the MiniLM backends; records when."""

    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def embed(self, texts: Sequence[str]) -> Vectors:
        if "model loaded" not in self.events:
            self.events.append("model loaded")
        return super().embed(texts)


@pytest.fixture
def quiet_logger() -> Iterator[None]:
    logger = logging.getLogger("anchormem")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


def test_the_startup_hook_loads_the_embedder_before_the_first_request(tmp_path: Path) -> None:
    events: list[str] = []
    settings = Settings(store=str(tmp_path / "m.db"))
    with Memory(settings, embedder=LazyEmbedder(events)) as memory:
        app = create_app(memory, KeyRing.from_raw({"k": ["alice"]}))
        assert events == []  # building the app loads nothing
        with TestClient(app) as client:
            events.append("first request")
            assert client.get("/v1/health").status_code == 200
    assert events == ["model loaded", "first request"]


def test_serve_loads_the_model_before_listening_and_logs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], quiet_logger: None
) -> None:
    events: list[str] = []
    monkeypatch.setitem(factory.BACKENDS, "hash", lambda _settings, _cache_dir: LazyEmbedder(events))

    def fake_run(app: Any, **_options: Any) -> None:  # uvicorn runs the startup hook, then listens
        with TestClient(app):
            events.append("listening")

    monkeypatch.setattr(uvicorn, "run", fake_run)
    keys = tmp_path / "keys.json"
    assert main(["serve-key", "add", "--keys", str(keys), "--user", "alice", "--quiet"]) == 0
    code = main(["serve", "--keys", str(keys), "--store", str(tmp_path / "m.db"), "--embed-backend", "hash"])
    assert code == 0
    assert events == ["model loaded", "listening"]
    assert "embedding model loaded in" in capsys.readouterr().err


def test_mcp_loads_the_model_before_it_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcp.server.mcpserver import MCPServer

    events: list[str] = []
    monkeypatch.setitem(factory.BACKENDS, "hash", lambda _settings, _cache_dir: LazyEmbedder(events))
    monkeypatch.setattr(MCPServer, "run", lambda self, *args, **kwargs: events.append("serving"))
    monkeypatch.setattr("anchormem.server.mcp_stdio.run_stdio", lambda server: events.append("serving"))
    code = main(["mcp", "--user", "alice", "--store", str(tmp_path / "m.db"), "--embed-backend", "hash"])
    assert code == 0
    assert events == ["model loaded", "serving"]
    assert "embedding model loaded in" in capsys.readouterr().err
