"""Every example in ``examples/`` runs offline to the end and shows what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

EXPECTED = {
    "async_and_client.py": [
        'AsyncMemory: user said, "I\'m training for the Lisbon half marathon in October."',
        "Client: stats 3 turns",
        "Client: tomas -> AccessDeniedError forbidden",
        "AsyncClient: ['t-",
    ],
    "langgraph_store.py": [
        "search: ('maya', 'facts') m1 score",
        "provenance: context c-",
        "get: I start a new job as a nurse in Porto next month.",
        "after delete: ['m2']; turns stored: 1",
    ],
    "langchain_agent.py": ["context  c-", "his name is Pico.", "answer: Your dog is called Pico.", "turns stored: 5"],
    "openai_agents_memory.py": [
        "tool saw: [t-",
        'Maya: "I adopted a dog, his name is Pico."',
        "answer: Pico!",
        "[friday] Coach: Pico!",
    ],
}


def test_every_example_is_checked() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for line in EXPECTED[name]:
        assert line in done.stdout, done.stdout
