"""A full disk (here: SQLite's own size limit, ``max_page_count``; or a file-size limit) fails a write with
507 ``store_full`` and a message that says so, leaves the store consistent, and the same add succeeds once
there is room."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

import anchormem
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing

KEYS = KeyRing.from_raw({"key-alice": ["alice"]})
ALICE = {"Authorization": "Bearer key-alice"}


def _messages(n: int, session: str) -> list[dict[str, str]]:
    story = "word " * 60
    return [{"speaker": "Ana", "session": session, "text": f"line {i} of a long story {story}"} for i in range(n)]


def test_a_full_store_answers_507_and_stays_consistent(tmp_path: Path) -> None:
    cfg = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem, TestClient(create_app(mem, KEYS)) as client:
        first = client.post("/v1/users/alice/memories", json={"messages": _messages(5, "1")}, headers=ALICE)
        assert first.status_code == 200, first.text
        db = mem.store._conn.db  # type: ignore[attr-defined]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 2}")  # room for a few rows, not for 150
        full = client.post("/v1/users/alice/memories", json={"messages": _messages(150, "2")}, headers=ALICE)
        assert full.status_code == 507, full.text
        assert full.json()["error"]["code"] == "store_full" and "full" in full.json()["error"]["message"]
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stats = client.get("/v1/users/alice/stats", headers=ALICE).json()
        assert stats["turns"] == 5 and stats["pending_extractions"] == 0  # the first add, whole
        db.execute("PRAGMA max_page_count = 1073741823")
        again = client.post("/v1/users/alice/memories", json={"messages": _messages(150, "2")}, headers=ALICE)
        assert again.status_code == 200, again.text
        stats = client.get("/v1/users/alice/stats", headers=ALICE).json()
        assert stats["turns"] == 155 and stats["pending_extractions"] == 0


FILE_LIMIT = """
import os, resource, signal, sys
from anchormem.errors import StoreFullError
from anchormem.model import Scope, Turn
from anchormem.store.sqlite import SQLiteStore

path = sys.argv[1]
store = SQLiteStore(path)
store.add_turns(Scope("a"), [Turn(id="t0", session="1", position=0, speaker="X", text="hi")])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
biggest = max(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
resource.setrlimit(resource.RLIMIT_FSIZE, (biggest + 16384, resource.RLIM_INFINITY))
turns = [Turn(id=f"t{i}", session="1", position=i, speaker="X", text="y" * 2000) for i in range(1, 200)]
try:
    store.add_turns(Scope("a"), turns)
except StoreFullError as exc:
    print("full:", exc)
print("turns:", len(store.turns(Scope("a"))))
"""


def test_a_file_size_limit_is_a_full_store(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(anchormem.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", FILE_LIMIT, str(tmp_path / "m.db")], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "full:" in done.stdout and "turns: 1" in done.stdout, done.stdout
