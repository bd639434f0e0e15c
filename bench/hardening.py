"""Figures for docs/HARDENING: deletes from another process racing adds, and PostgreSQL backends killed
under REST traffic.

    PYTHONPATH=src python bench/hardening.py race STORE ROUNDS     # STORE: a SQLite path or a postgresql:// URL
    PYTHONPATH=src python bench/hardening.py kills URL REQUESTS EVERY   # URL: a superuser URL (it terminates backends)

``race``: per round, one process adds a kept and a secret session for a fresh user with a fake LLM that
stops on the first secret extraction until a second process has run ``Memory.delete`` of the secret
session; then counts the turns of the kept session lost and the secrets left in facts, events, the export
and search. ``kills``: REQUESTS REST calls (add, search, stats in turn) against a PostgreSQL store, every
EVERY-th preceded by terminating all of the database's server connections; counts the 5xx answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anchormem
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.model import Scope

SECRET = "zebra locker 4921"
ADDER = """
import json, sys, time
from pathlib import Path
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory

store, folder, secret, user = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4]

def facts(messages):
    content = messages[-1]["content"]
    if "Excerpt:" not in content:
        return json.dumps({"event": "Ana talked about " + content[-60:].replace("\\n", " ")})
    if secret in content:
        (folder / "waiting").touch()
        deadline = time.monotonic() + 120
        while not (folder / "deleted").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    lines = content.rsplit("Excerpt:", 1)[-1].splitlines()
    return json.dumps([line.split(" said, ", 1)[1].strip().strip('"')[:80] for line in lines if " said, " in line])

cfg = Settings.load(env={}, store=store, cache=str(folder / "cache.db"), embed__backend="hash")
msgs = [{"speaker": "Ana", "session": "keep", "text": f"my cat Tom likes fish, day {i}"} for i in range(6)]
msgs += [{"speaker": "Ana", "session": "secret", "text": f"the {secret} code, note {i}"} for i in range(6)]
with Memory(cfg, embedder=HashEmbedder(), llm=FakeLLM(facts)) as mem:
    mem.add(msgs, user_id=user)
print("OK")
"""
DELETER = """
import sys
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
cfg = Settings.load(env={}, store=sys.argv[1], cache=sys.argv[2], embed__backend="hash")
with Memory(cfg, embedder=HashEmbedder()) as mem:
    mem.delete(user_id=sys.argv[3], session="secret")
print("OK")
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(anchormem.__file__).parents[1])}


def race(store: str, rounds: int) -> dict[str, int]:
    totals = {
        "rounds": rounds,
        "turns_lost": 0,
        "facts_left": 0,
        "events_left": 0,
        "export_lines_left": 0,
        "search_hits_left": 0,
    }
    for r in range(rounds):
        folder = Path(tempfile.mkdtemp(prefix="race-"))
        user = f"race{r}-{os.getpid()}"
        adder = subprocess.Popen(
            [sys.executable, "-c", ADDER, store, str(folder), SECRET, user],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while not (folder / "waiting").exists() and adder.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        subprocess.run(
            [sys.executable, "-c", DELETER, store, str(folder / "cache.db"), user],
            env=_env(),
            check=True,
            timeout=120,
            capture_output=True,
        )
        (folder / "deleted").touch()
        adder.communicate(timeout=120)
        cfg = Settings.load(env={}, store=store, cache=str(folder / "reader.db"), embed__backend="hash")
        with Memory(cfg, embedder=HashEmbedder()) as mem:
            totals["turns_lost"] += 6 - sum(t.session == "keep" for t in mem.turns(user_id=user))
            totals["facts_left"] += sum(SECRET in f.text for f in mem.facts(user_id=user))
            totals["events_left"] += sum(SECRET in e.text for e in mem.events(user_id=user))
            totals["export_lines_left"] += sum(
                SECRET in json.dumps(x, ensure_ascii=False) for x in mem.export(user_id=user)
            )
            hits = mem.search(f"the {SECRET} code", user_id=user)
            totals["search_hits_left"] += sum(SECRET in h.context.text for h in hits.contexts)
    return totals


def kills(url: str, requests: int, every: int) -> dict[str, int]:
    import psycopg

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyRing

    name = url.split("?", 1)[0].rsplit("/", 1)[1]
    admin_url = url.replace(f"/{name}", "/postgres", 1)
    keys = KeyRing.from_raw({"k": ["bench"]})
    auth = {"Authorization": "Bearer k"}
    out = {"requests": 0, "kills": 0, "backends_terminated": 0, "status_5xx": 0}
    cfg = Settings.load(env={}, store=url, cache=str(Path(tempfile.mkdtemp()) / "c.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem, _client(create_app(mem, keys, warm=False)) as client:
        for i in range(requests):
            if i % every == 0:
                with psycopg.connect(admin_url, autocommit=True) as conn:
                    rows = conn.execute(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = %s AND pid <> pg_backend_pid()",
                        (name,),
                    ).fetchall()
                out["kills"] += 1
                out["backends_terminated"] += sum(1 for (done,) in rows if done)
            if i % 3 == 0:
                r = client.post(
                    "/v1/users/bench/memories",
                    json={"messages": [{"speaker": "A", "session": f"s{i}", "text": f"line {i}"}]},
                    headers=auth,
                )
            elif i % 3 == 1:
                r = client.post("/v1/users/bench/search", json={"query": "line"}, headers=auth)
            else:
                r = client.get("/v1/users/bench/stats", headers=auth)
            out["requests"] += 1
            out["status_5xx"] += r.status_code >= 500
        out["turns_sent"] = len(range(0, requests, 3))
    with Memory(cfg, embedder=HashEmbedder()) as fresh:  # a new connection: what the store holds
        out["turns_stored"] = fresh.stats(user_id="bench").turns if fresh.store.version(Scope("bench")) else 0
    return out


def _client(app: Any) -> Any:
    from fastapi.testclient import TestClient

    return TestClient(app, raise_server_exceptions=False)  # a 500 is counted, not raised


if __name__ == "__main__":
    if sys.argv[1] == "race":
        print(json.dumps(race(sys.argv[2], int(sys.argv[3]))))
    else:
        print(json.dumps(kills(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
