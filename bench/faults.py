"""Fault injection: ingest a conversation through an endpoint that fails a fifth of the time (500s,
time-outs, malformed output; ``bench/fake_server.py`` on loopback), then re-run until every
extraction is done. Prints contexts stored and extractions failed then recovered.

    PYTHONPATH=src .venv/bin/python bench/faults.py [--turns 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from fake_server import faulty_server  # bench/fake_server.py, beside this script

from anchormem.config import LLMSettings, Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.memory import Memory


def conversation(n_turns: int) -> list[dict[str, str]]:
    return [
        {
            "speaker": "Ana" if i % 2 else "Ben",
            "session": str(1 + i // 10),
            "text": f"line {i}: we spoke about topic {i % 7} and item {i * 13}",
        }
        for i in range(n_turns)
    ]


def reply(body: dict[str, Any]) -> str:
    """A well-formed answer: one fact per turn of an extraction excerpt, else an event."""
    content = body["messages"][-1]["content"]
    if "Excerpt:" in content:
        lines = content.rsplit("Excerpt:", 1)[-1].splitlines()
        return json.dumps([line.replace(" said, ", " said ").strip('" ')[:80] for line in lines if " said, " in line])
    return json.dumps({"event": "Ana and Ben talked about " + " ".join(content[-60:].split())})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--retries", type=int, default=0, help="client retries per call (default 0: every fault shows)")
    args = ap.parse_args()
    msgs = conversation(args.turns)
    with tempfile.TemporaryDirectory() as tmp, faulty_server(args.seed, steps=10**5, reply=reply, sleep=0.6) as server:
        llm_settings = LLMSettings(
            base_url=server.base_url, model="fake-model", timeout=0.3, max_retries=args.retries, concurrency=4
        )
        cfg = Settings(
            store=str(Path(tmp) / "m.db"), embed=Settings.load(env={}, embed__backend="hash").embed, llm=llm_settings
        )
        with Memory(cfg, embedder=HashEmbedder(), llm=OpenAICompatLLM(llm_settings, backoff=0.01)) as mem:
            run = 0
            while True:
                run += 1
                report = mem.add(msgs, user_id="u")
                stats = mem.stats(user_id="u")
                print(
                    f"run {run}: contexts stored {stats.contexts}  extractions failed {report.extractions_failed}"
                    f"  recovered {report.extractions_recovered}  integrations failed {report.integrations_failed}"
                    f"  llm calls {report.llm_calls}  still failed {stats.failed_extractions}",
                    flush=True,
                )
                if stats.failed_extractions == 0 or run >= 10:
                    break
            print(
                f"requests {len(server.requests)}; fault rate 0.2 on every request (a third each: 500, "
                f"time-out, malformed)"
            )


if __name__ == "__main__":
    main()
