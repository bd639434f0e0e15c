"""The cold part of ``bench/agent_loop.py``: a new process opens the largest memory and runs its first search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from agent_loop_build import USER, Workload, log

CHILD = r"""
import json, sys, time
start = time.time()
from anchormem import Memory
from anchormem.config import Settings
imported = time.time()
mem = Memory(Settings.load(env={}, store=sys.argv[1]))
result = mem.search(sys.argv[3], user_id=sys.argv[2])
first = time.time()
mem.search(sys.argv[4], user_id=sys.argv[2])
second = time.time()
print(json.dumps({"start": start, "imported": imported, "first": first, "second": second,
                  "contexts": len(result.contexts)}))
"""


def cold_start(store_name: str, location: str, work: Workload, runs: int, home: Path) -> list[dict[str, float]]:
    """The first process on a fresh copy, then ``runs`` more; ``home`` is their home folder, new and empty (a
    server store's snapshot files go under it: the first process finds none)."""
    out = []
    home.mkdir(parents=True, exist_ok=False)
    (home / ".cache").symlink_to(Path("~/.cache").expanduser())  # the embedder's built model, as before
    for _ in range(runs + 1):
        args = [sys.executable, "-c", CHILD, location, USER, work.question(), work.question()]
        spawned = time.time()
        env = {**os.environ, "HOME": str(home)}
        done = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
        got = json.loads(done.stdout.strip().splitlines()[-1])
        row = {
            "to first result": got["first"] - spawned,
            "interpreter + imports": got["imported"] - spawned,
            "first search (open, model, snapshot)": got["first"] - got["imported"],
            "second search": got["second"] - got["first"],
        }
        log(f"  cold {store_name}: " + ", ".join(f"{k} {v:.2f} s" for k, v in row.items()))
        out.append(row)
    return out
