"""A delete run by another process while an add of the same user is extracting must leave none of the
deleted words behind: no fact, event, export line or search hit, on either store.

Two real processes share one store: the adder's LLM (a fake) stops on the first extraction of the
secret session and waits until the test says the delete is done; the deleter runs ``Memory.delete``
in between. Waits are bounded; nothing is timed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import anchormem
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory

ROOT = Path(__file__).resolve().parents[1]
SECRET = "zebra locker 4921"
WAIT = 120.0  # seconds any one step may take before the test gives up (a busy machine)

ADDER = """
import json, sys, time
from pathlib import Path
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder

store, folder, secret = sys.argv[1], Path(sys.argv[2]), sys.argv[3]

def slow(messages):
    if "Excerpt:" in messages[-1]["content"] and secret in messages[-1]["content"]:
        (folder / "waiting").touch()
        deadline = time.monotonic() + 120
        while not (folder / "deleted").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return llm_responder(messages)

cfg = Settings.load(env={}, store=store, cache=str(folder / "adder-cache.db"), embed__backend="hash")
msgs = [{"speaker": "Ana", "session": "keep", "text": f"my cat Tom likes fish, day {i}"} for i in range(6)]
said = [f"the {secret} code, note {i}, and my cat Tom" for i in range(6)]
msgs += [{"speaker": "Ana", "session": "secret", "text": t} for t in said]
with Memory(cfg, embedder=HashEmbedder(), llm=FakeLLM(slow)) as mem:
    report = mem.add(msgs, user_id="race")
print("OK", report.facts_added)
"""

DELETER = """
import sys
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory

cfg = Settings.load(env={}, store=sys.argv[1], cache=sys.argv[2], embed__backend="hash")
with Memory(cfg, embedder=HashEmbedder()) as mem:
    report = mem.delete(user_id="race", session="secret")
print("OK", report.turns)
"""


def _env() -> dict[str, str]:
    """The children import the anchormem this test imported."""
    return {**os.environ, "PYTHONPATH": f"{Path(anchormem.__file__).parents[1]}{os.pathsep}{ROOT}"}


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT
    while not path.exists():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the adder ended before it reached the secret session: {out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the adder never reached the secret session")
        time.sleep(0.05)


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_a_delete_from_another_process_during_an_add_leaves_no_deleted_words(location: str, tmp_path: Path) -> None:
    adder = subprocess.Popen(
        [sys.executable, "-c", ADDER, location, str(tmp_path), SECRET],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(tmp_path / "waiting", adder)
        deleter = subprocess.run(
            [sys.executable, "-c", DELETER, location, str(tmp_path / "adder-cache.db")],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert deleter.returncode == 0 and deleter.stdout.startswith("OK 6"), deleter.stderr
    finally:
        (tmp_path / "deleted").touch()
        out, err = adder.communicate(timeout=WAIT)
    assert adder.returncode == 0 and out.startswith("OK"), err

    cfg = Settings.load(env={}, store=location, cache=str(tmp_path / "reader-cache.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        assert {t.session for t in mem.turns(user_id="race")} == {"keep"}
        contexts = mem.contexts(user_id="race")
        facts, events = mem.facts(user_id="race"), mem.events(user_id="race")
        assert contexts and facts  # the kept session is all there
        assert not [c.id for c in contexts if SECRET in c.text]
        assert not [f.text for f in facts if SECRET in f.text]
        assert {f.context_id for f in facts} <= {c.id for c in contexts}  # no fact of a vanished context
        assert not [e.text for e in events if SECRET in e.text]
        exported = [json.dumps(r, ensure_ascii=False) for r in mem.export(user_id="race")]
        assert not [line for line in exported if SECRET in line]
        hits = mem.search(f"the {SECRET} code", user_id="race")
        assert hits.contexts and SECRET not in repr((hits.contexts, hits.events))
