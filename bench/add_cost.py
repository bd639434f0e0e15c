"""What an add costs with an LLM, as the paper's Table 4: calls, prompt and completion tokens and wall time
per phase (extraction, integration), for a bulk import and for one-message adds in the agent loop.

    PYTHONPATH=src .venv/bin/python bench/add_cost.py [--sample conv-26] [--loop 20] [--data DIR]

The LLM is the fake OpenAI-compatible server (``bench/fake_server.py``) on 127.0.0.1, answering as
recorded: an extraction request whose excerpt is a passage of the Qwen2.5-7B pack
(``locomo_facts_qwen2.5-7b.jsonl``, paper windows) gets that passage's facts; any other excerpt (a window an
add cut short) one fact per line; an integration request gets the pack event that holds one of its key facts,
else the key facts joined. So calls and tokens are those of the paper's method on this conversation with
Qwen2.5-7B's facts, and wall time is this machine's overhead around the calls (the server answers at once: add
the model's own latency per call). The server reports no usage, so tokens are the client's estimate (four
characters a token, plus four per message), the same estimate for both workloads.

- bulk: the whole conversation in one ``add`` (paper windows, MiniLM, concurrency 4).
- loop: the conversation but its last session in one ``add`` (not measured), then the last session's messages
  one ``add`` each (``--loop`` of them), as an agent adds after each reply; per add: the phases' usage, the
  contexts it cut and the facts it added.

Prints a markdown table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from fake_server import FakeOpenAIServer  # bench/fake_server.py, beside this script

from anchormem.config import Settings
from anchormem.memory import Memory
from anchormem.model import Usage

PHASES = ("extraction", "integration")


def recorded_replies(data: Path, sample: str) -> Any:
    """The reply function of the fake server (module docstring)."""
    facts: dict[str, list[str]] = {}
    for line in (data / "locomo_facts_qwen2.5-7b.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["sample_id"] == sample:
            facts[rec["passage"].strip()] = rec["facts"]
    events: dict[str, str] = {}
    for line in (data / "locomo_events_qwen2.5-7b.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["sample_id"] == sample:
            for source in rec["source_facts"]:
                events.setdefault(source, rec["event"])

    def reply(body: dict[str, Any]) -> str:
        content = body["messages"][-1]["content"]
        if "Key fact:" in content:
            keys = [line[len("Key fact: ") :].strip() for line in content.splitlines() if line.startswith("Key fact: ")]
            found = next((events[k] for k in keys if k in events), " ".join(keys))
            return json.dumps({"event": found, "changes": []})
        excerpt = content.rsplit("Excerpt:", 1)[-1].rsplit("Answer:", 1)[0].strip()
        if excerpt in facts:
            return json.dumps(facts[excerpt])
        said = [ln.split(" said, ", 1) for ln in excerpt.splitlines() if " said, " in ln]
        return json.dumps([f"{who} said {text.strip().strip(chr(34))[:200]}" for who, text in said])

    return reply


def conversation(data: Path, sample: str) -> list[list[dict[str, Any]]]:
    """The sample's sessions as message lists (speaker, text, time, id, image caption)."""
    conv = next(s for s in json.loads((data / "locomo10.json").read_text()) if s["sample_id"] == sample)
    c = conv["conversation"]
    out = []
    n = 1
    while f"session_{n}" in c:
        when = c[f"session_{n}_date_time"]
        out.append(
            [
                {
                    "speaker": t["speaker"],
                    "text": t["text"],
                    "id": t["dia_id"],
                    "session": str(n),
                    "timestamp": when,
                    **({"image_caption": t["blip_caption"]} if t.get("blip_caption") else {}),
                }
                for t in c[f"session_{n}"]
            ]
        )
        n += 1
    return out


def used(mem: Memory, before: dict[str, Usage]) -> dict[str, Usage]:
    now = mem.stats(user_id="u").usage
    return {p: now[p].since(before.get(p)) if p in now else Usage() for p in PHASES}


def row(name: str, usage: dict[str, Usage], seconds: float, note: str = "", adds: int = 1) -> str:
    """One table row: per phase calls, prompt and completion tokens (spent or cached) and wall time, each
    divided by ``adds`` (a mean per add)."""
    cells = []
    for p in PHASES:
        u = usage[p]
        cells += [
            f"{u.calls / adds:,.{0 if adds == 1 else 2}f}",
            f"{u.total_prompt_tokens / adds:,.0f}",
            f"{u.total_completion_tokens / adds:,.0f}",
            f"{u.wall_seconds / adds:.2f}",
        ]
    return f"| {name} | " + " | ".join(cells) + f" | {seconds:.2f} | {note} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", default="conv-26")
    parser.add_argument("--loop", type=int, default=20, help="one-message adds measured (the last session's)")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    args = parser.parse_args()
    sessions = conversation(args.data, args.sample)
    with FakeOpenAIServer(reply=recorded_replies(args.data, args.sample), usage=False) as server:
        tmp = Path(tempfile.mkdtemp(prefix="add_cost_"))

        def memory(name: str) -> Memory:
            settings = Settings.load(
                env={},
                store=str(tmp / f"{name}.db"),
                llm__base_url=server.base_url,
                llm__model="fake-server-qwen2.5-7b-pack",
                chunking__window=3,
                chunking__stride=2,
                chunking__chat_chars=0,
            )
            return Memory(settings)

        print(
            "| workload | extraction calls | prompt tok | completion tok | wall s | integration calls | prompt tok "
            "| completion tok | wall s | add s | notes |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        with memory("bulk") as mem:
            mem.embedder.embed(["warm up"])
            turns = [m for s in sessions for m in s]
            started = time.perf_counter()
            report = mem.add(turns, user_id="u")
            took = time.perf_counter() - started
            stats = mem.stats(user_id="u")
            note = (
                f"{len(turns)} messages, {report.contexts_added} contexts, {report.facts_added} facts, "
                f"{report.events_added} events, {report.clusters_discarded} clusters discarded"
            )
            print(row(f"bulk import ({args.sample}, one add)", used(mem, {}), took, note))
            assert stats.facts == report.facts_added
        with memory("loop") as mem:
            mem.embedder.embed(["warm up"])
            mem.add([m for s in sessions[:-1] for m in s], user_id="u")
            last = sessions[-1][: args.loop]
            per_add: list[tuple[dict[str, Usage], float, int, int]] = []
            for message in last:
                before = mem.stats(user_id="u").usage
                started = time.perf_counter()
                rep = mem.add([message], user_id="u")
                per_add.append((used(mem, before), time.perf_counter() - started, rep.contexts_added, rep.facts_added))
            total = {p: Usage() for p in PHASES}
            for usage, _, _, _ in per_add:
                for p in PHASES:
                    total[p].add(usage[p])
            median_s = statistics.median(s for _, s, _, _ in per_add)
            contexts = sum(c for _, _, c, _ in per_add)
            facts = sum(f for _, _, _, f in per_add)
            note = (
                f"mean of {len(per_add)} adds of one message into a {sum(len(s) for s in sessions[:-1])}-message "
                f"memory; {contexts} contexts cut and {facts} facts added in all; add s: median"
            )
            print(row("agent loop (one message per add)", total, median_s, note, adds=len(per_add)))
            print()
            print(
                "per add (extraction calls / integration calls / contexts cut / facts added):",
                " ".join(f"{u['extraction'].calls}/{u['integration'].calls}/{c}/{f}" for u, _, c, f in per_add),
            )


if __name__ == "__main__":
    main()
