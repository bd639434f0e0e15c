"""LLM faults: an endpoint that fails, times out or answers garbage a fifth of the time (a fault-injecting
fake server on loopback). Ingest completes, every context is stored, failed extractions are recorded and
the next run retries them; the reports say how many."""

from __future__ import annotations

import json
import random
import threading
from pathlib import Path
from typing import Any

from anchormem.config import LLMSettings, Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fake_llm_server import FakeOpenAIServer, Step


def faulty_server(seed: int, steps: int, rate: float = 0.2, sleep: float = 1.0) -> FakeOpenAIServer:
    """A server whose first ``steps`` requests fail with probability ``rate``: a third each 500, a
    time-out (sleep), malformed output."""
    rng = random.Random(seed)
    script: list[Step] = []
    garbage: set[int] = set()
    for i in range(steps):
        roll = rng.random()
        if roll < rate / 3:
            script.append(500)
        elif roll < 2 * rate / 3:
            script.append(("sleep", sleep))
        else:
            script.append("ok")
            if roll < rate:
                garbage.add(i)
    count = iter(range(10**9))
    lock = threading.Lock()

    def reply(body: dict[str, Any]) -> str:
        with lock:
            n = next(count)
        if n in garbage:
            return "Sorry, I cannot {help with that"
        return llm_responder(body["messages"])

    return FakeOpenAIServer(script, reply=reply)


def conversation(n_turns: int = 60) -> list[dict[str, str]]:
    return [
        {
            "speaker": "Ana" if i % 2 else "Ben",
            "session": str(1 + i // 10),
            "text": f"line {i}: we spoke about topic {i % 7} and item {i * 13}",
        }
        for i in range(n_turns)
    ]


def test_ingest_survives_a_faulty_endpoint_and_the_next_run_recovers(tmp_path: Path) -> None:
    cfg = Settings.load(env={}, store=str(tmp_path / "m.db"), embed__backend="hash")
    with faulty_server(seed=3, steps=45, sleep=0.6) as server:
        llm_settings = LLMSettings(
            base_url=server.base_url, model="fake-model", timeout=0.3, max_retries=0, concurrency=2
        )
        llm = OpenAICompatLLM(llm_settings, backoff=0.01)
        cfg = Settings(store=cfg.store, embed=cfg.embed, llm=llm_settings)
        with Memory(cfg, embedder=HashEmbedder(), llm=llm) as mem:
            first = mem.add(conversation(), user_id="u")
            stats = mem.stats(user_id="u")
            assert stats.turns == 60 and stats.contexts == 30  # every context stored
            assert first.extractions_failed > 0
            assert stats.failed_extractions == first.extractions_failed and stats.pending_extractions == 0
            recovered = 0
            for _ in range(3):
                again = mem.add(conversation(), user_id="u")
                recovered += again.extractions_recovered
                if mem.stats(user_id="u").failed_extractions == 0:
                    break
            assert recovered == first.extractions_failed
            assert mem.stats(user_id="u").failed_extractions == 0
            history = mem.history(user_id="u")
            assert history[0].detail["extractions_failed"] == first.extractions_failed
            assert sum(h.detail["extractions_recovered"] for h in history) == recovered
            json.dumps([h.detail for h in history])
