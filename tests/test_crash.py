"""Crash safety: an ``add`` killed with SIGKILL at varied moments leaves a consistent store, and the
same ``add`` run again completes it without duplicates (real subprocesses, bounded count and time)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from anchormem.model import Scope
from anchormem.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
store, conv = sys.argv[1], sys.argv[2]
cfg = Settings.load(env={}, store=store, embed__backend="hash")
with Memory(cfg, embedder=HashEmbedder(), llm=FakeLLM(llm_responder, delay=0.004)) as mem:
    print("START", flush=True)
    mem.add(conv, user_id="u")
print("DONE", flush=True)
"""


def _conversation(path: Path) -> Path:
    rng = random.Random(7)
    msgs = [
        {
            "speaker": "Ana" if i % 2 else "Ben",
            "session": str(1 + i // 12),
            "text": f"turn {i} about {rng.choice(['cats', 'cello', 'beach', 'paint', 'bach'])} number {i * 7}",
        }
        for i in range(72)
    ]
    path.write_text(json.dumps(msgs))
    return path


def _run(store: Path, conv: Path, kill_after: float | None) -> bool:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store), str(conv)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "START", proc.stderr.read() if proc.stderr else ""
    if kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    # Read on through the buffer readline filled: a quick run's DONE may already be in it, where
    # communicate(), reading the pipe itself, would never see it.
    out = proc.stdout.read()
    proc.wait(timeout=60)
    return "DONE" in out


def _state(path: Path) -> dict[str, object]:
    store = SQLiteStore(path)
    try:
        scope = Scope("u")
        turns, contexts, facts, events = (
            store.turns(scope),
            store.contexts(scope),
            store.facts(scope),
            store.events(scope),
        )
        turn_ids, ctx_ids, fact_ids = {t.id for t in turns}, {c.id for c in contexts}, {f.id for f in facts}
        # consistent: no dangling reference, no duplicate
        assert len(turn_ids) == len(turns) and len(ctx_ids) == len(contexts) and len(fact_ids) == len(facts)
        assert all(set(c.turn_ids) <= turn_ids for c in contexts)
        assert all(f.context_id in ctx_ids for f in facts)
        assert all(set(e.fact_ids) <= fact_ids for e in events)
        done = {s.context_id for s in store.extraction_states(scope) if s.status == "done"}
        return {
            "turns": sorted(turn_ids),
            "contexts": sorted(ctx_ids),
            "facts": sorted(fact_ids),
            "events": sorted(e.id for e in events),
            "done": sorted(done),
            "unlinked": store.unlinked_facts(scope),
        }
    finally:
        store.close()


def test_sigkill_during_add_then_rerun_completes_without_duplicates(tmp_path: Path) -> None:
    conv = _conversation(tmp_path / "conv.json")
    reference = tmp_path / "ref.db"
    assert _run(reference, conv, None)
    expected = _state(reference)
    store = tmp_path / "crash.db"
    rng = random.Random(11)
    started = time.monotonic()
    for _ in range(4):
        if _run(store, conv, rng.uniform(0.0, 0.25)):
            break
        _state(store)  # consistent after every kill
        if time.monotonic() - started > 12:
            break
    assert _run(store, conv, None)
    assert _state(store) == expected
