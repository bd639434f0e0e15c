"""``anchormem demo``: build a memory from a small shipped conversation and query it.

Runs on the offline default (no LLM: offline anchors, extractive events); with an
LLM configured it extracts facts, writes events and answers with the LLM too.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from anchormem.cli.common import flag, settings_from, store_options
from anchormem.cli.progress import Bars
from anchormem.config import Settings
from anchormem.ingest.sources import Conversation, parse_messages
from anchormem.wire.serialize import report_dict, to_jsonable

DEMO_USER = "demo"


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="build a memory from a shipped conversation and query it")
    flag(p, "--keep", help="keep the demo store (default: a temporary one)")
    store_options(p)
    p.set_defaults(handler=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> Any:
    return run_demo(settings_from(args), keep=args.keep, as_json=args.json, quiet=args.quiet)


def demo_data() -> dict[str, Any]:
    text = resources.files("anchormem.data").joinpath("demo_conversation.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def run_demo(settings: Settings, keep: bool = False, as_json: bool = False, quiet: bool = False) -> Any:
    from anchormem.memory import Memory

    data = demo_data()
    conversation = Conversation(name="demo", turns=tuple(parse_messages(data["messages"], where="demo")))
    with tempfile.TemporaryDirectory(prefix="anchormem-demo-") as tmp:
        store = str(Path(settings.store_path.parent if keep else tmp) / "demo.db")
        if keep and Path(store).exists():
            Path(store).unlink()
        with Memory(replace(settings, store=store, cache=None if not keep else settings.cache)) as mem:
            say = (lambda _line: None) if as_json else print
            path = "an LLM at " + settings.llm.base_url if settings.llm else "offline (no LLM configured)"
            say(
                f"anchormem demo — {data['title']}: {len(conversation.turns)} turns in "
                f"{len(conversation.sessions)} sessions; path: {path}"
            )
            with Bars(enabled=not (quiet or as_json)) as bars:
                report = mem.add(conversation, user_id=DEMO_USER, progress=bars)
            stats = mem.stats(user_id=DEMO_USER)
            say(
                f"built {stats.contexts} contexts, {stats.facts} facts, {stats.events} events "
                f"({report.clusters_discarded} clusters discarded) in {report.seconds:.1f} s\n"
            )
            contexts = mem.contexts(user_id=DEMO_USER)
            facts = mem.facts(user_id=DEMO_USER)
            say(f"first context ({contexts[0].id}):\n" + _indent(contexts[0].text))
            say("its anchors:\n" + "\n".join(f"   • {f.text}" for f in facts if f.context_id == contexts[0].id))
            answers: list[dict[str, Any]] = []
            for question in data["questions"]:
                result = mem.search(question, user_id=DEMO_USER, max_contexts=3)
                item: dict[str, Any] = {"question": question, "memories": to_jsonable(result)}
                say(f"\n=== {question}")
                for hit in result.contexts:
                    c = hit.context
                    say(f"-- turns {', '.join(c.turn_ids)} (session {c.session}, {c.date}), score {hit.score:.3f}")
                    say(_indent(c.text))
                if mem.llm is not None:
                    ans = mem.answer(question, user_id=DEMO_USER)
                    item["answer"] = ans.text
                    item["cited_turn_ids"] = list(ans.cited_turn_ids)
                    say(f">> answer: {ans.text}  (cited: {', '.join(ans.cited_turn_ids) or 'none'})")
                answers.append(item)
            if mem.llm is None:
                say(
                    "\nNo LLM configured: memories are shown without a generated answer. Set "
                    "ANCHORMEM_LLM_BASE_URL and ANCHORMEM_LLM_MODEL to extract facts and answer with an LLM."
                )
            if keep:
                say(f"\nstore kept at {store}")
            if as_json:
                return {"report": report_dict(report), "stats": to_jsonable(stats), "questions": answers}
    return None


def _indent(text: str) -> str:
    return "\n".join("   " + line for line in text.splitlines())
