"""LLM faults: an endpoint that fails, times out or answers garbage a fifth of the time (a fault-injecting
fake server on loopback). Ingest completes, every context is stored, failed extractions are recorded and
the next run retries them; the reports say how many."""

from __future__ import annotations

import json
from pathlib import Path

from bench import fake_server
from bench.fake_server import FakeOpenAIServer

from anchormem.config import LLMSettings, Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder


def faulty_server(seed: int, steps: int, sleep: float = 1.0) -> FakeOpenAIServer:
    return fake_server.faulty_server(seed, steps, reply=lambda body: llm_responder(body["messages"]), sleep=sleep)


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
