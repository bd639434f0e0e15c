"""Several processes adding to and searching one SQLite store at once: exact counts, and no
"database is locked" reaching the user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
store, worker = sys.argv[1], int(sys.argv[2])
cfg = Settings.load(env={}, store=store, embed__backend="hash")
with Memory(cfg, embedder=HashEmbedder()) as mem:
    for s in range(4):
        msgs = [{"speaker": "AB"[i % 2], "session": f"w{worker}s{s}",
                 "text": f"worker {worker} session {s} line {i} cats"} for i in range(7)]
        mem.add(msgs, user_id="shared")
        mem.add(msgs, user_id=f"own{worker}")
        mem.search("cats line", user_id="shared")
        mem.history(user_id="shared")
print("OK")
"""
WORKERS = 3


def test_processes_add_and_search_one_store(tmp_path: Path) -> None:
    store = tmp_path / "shared.db"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(store), str(w)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    results = [p.communicate(timeout=90) for p in procs]
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0 and "OK" in out, err
        assert "locked" not in err
    cfg = Settings.load(env={}, store=str(store), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        stats = mem.stats(user_id="shared")
        assert (stats.turns, stats.sessions, stats.contexts) == (WORKERS * 4 * 7, WORKERS * 4, WORKERS * 4 * 4)
        assert stats.pending_extractions == 0
        for w in range(WORKERS):
            assert mem.stats(user_id=f"own{w}").turns == 4 * 7
        assert len([h for h in mem.history(user_id="shared") if h.op == "add"]) == WORKERS * 4
        facts = {f.id for f in mem.facts(user_id="shared")}
        assert all(set(e.fact_ids) <= facts for e in mem.events(user_id="shared"))
