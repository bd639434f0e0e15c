"""The ``anchormem`` command: a thin shell over :class:`anchormem.Memory`.

Errors from the library become one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from anchormem.cli import output
from anchormem.cli.progress import Bars
from anchormem.config import Settings
from anchormem.errors import AnchorMemError, InputError
from anchormem.memory import Memory

EXIT_ERROR = 1
EXIT_USAGE = 2


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("store and models")
    g.add_argument("--store", help="store file (env ANCHORMEM_STORE; default ~/.anchormem/memory.db)")
    g.add_argument("--config", help="TOML config file (env ANCHORMEM_CONFIG)")
    g.add_argument(
        "--llm-url", help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (env ANCHORMEM_LLM_BASE_URL)"
    )
    g.add_argument("--llm-model", help="model name at that endpoint (env ANCHORMEM_LLM_MODEL)")
    g.add_argument("--llm-key", help="API key (env ANCHORMEM_LLM_API_KEY or OPENAI_API_KEY)")
    g.add_argument(
        "--embed-backend",
        choices=["minilm", "minilm-onnx", "minilm-torch", "openai", "hash"],
        help="embedding backend (default minilm: all-MiniLM-L6-v2, offline)",
    )
    g.add_argument("--json", action="store_true", help="machine-readable JSON output")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress bars")


def _scope(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--user", required=required, help="user id (whose memory)")
    p.add_argument("--agent", help="agent id (optional finer scope)")
    p.add_argument("--run", help="run id (optional finer scope)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anchormem",
        description="Long-term memory for LLM agents (AnchorMem: facts as anchors, original words as memory).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("add", help="add a conversation (LoCoMo file or JSON/JSONL messages)")
    p.add_argument("file")
    _scope(p)
    p.add_argument("--sample", help="LoCoMo sample id to add (e.g. conv-26)")
    p.add_argument(
        "--all-samples", action="store_true", help="add every LoCoMo sample, each as its own run (--run = sample id)"
    )
    p.add_argument("--facts", help="precomputed facts JSONL (records with dia_ids and facts)")
    p.add_argument("--events", help="precomputed events JSONL (records with event and source_facts)")
    _common(p)

    p = sub.add_parser("search", help="retrieve memories for a query, with provenance")
    p.add_argument("query")
    _scope(p)
    p.add_argument("--k", type=int, help="top-k facts and events (default 10)")
    p.add_argument("--max-contexts", type=int, help="at most this many contexts (default 10)")
    p.add_argument("--variant", help="retrieval recipe: anchormem (default), paper, no-events, facts, bm25")
    _common(p)

    p = sub.add_parser("answer", help="answer a question from memory with the configured LLM")
    p.add_argument("question")
    _scope(p)
    p.add_argument("--k", type=int, help="top-k facts and events (default 10)")
    _common(p)

    p = sub.add_parser("stats", help="counts of contexts, facts, events and LLM usage")
    _scope(p)
    _common(p)

    p = sub.add_parser("list", help="list turns, contexts, facts or events of a memory")
    p.add_argument("kind", choices=["turns", "contexts", "facts", "events"])
    _scope(p)
    _common(p)

    p = sub.add_parser("get", help="show one record by id (c-…, f-…, e-… or a turn id)")
    p.add_argument("id")
    _scope(p)
    _common(p)

    p = sub.add_parser("users", help="list the memories (user / agent / run) in the store")
    _common(p)

    p = sub.add_parser("demo", help="build a memory from a shipped conversation and query it")
    p.add_argument("--keep", action="store_true", help="keep the demo store (default: a temporary one)")
    _common(p)

    from anchormem.cli import eval_cmd

    eval_cmd.register(sub, _common)
    from anchormem.cli import lifecycle_cmd

    lifecycle_cmd.register(sub, _common, _scope)

    from anchormem.cli import serve_cmd

    serve_cmd.register(sub, _common)
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {
        "store": args.store,
        "llm__base_url": args.llm_url,
        "llm__model": args.llm_model,
        "llm__api_key": args.llm_key,
        "embed__backend": args.embed_backend,
    }
    return Settings.load(config_file=args.config, **overrides)


def _scope_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"user_id": args.user, "agent_id": args.agent, "run_id": args.run}


def cmd_add(mem: Memory, args: argparse.Namespace) -> Any:
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        if args.all_samples:
            if args.sample or args.run:
                raise InputError("--all-samples cannot be combined with --sample or --run")
            reports = mem.add_all(
                args.file, user_id=args.user, agent_id=args.agent, facts=args.facts, events=args.events, progress=bars
            )
            return {name: output.report_dict(r) for name, r in reports.items()}
        report = mem.add(
            args.file, sample=args.sample, facts=args.facts, events=args.events, progress=bars, **_scope_kwargs(args)
        )
    return output.report_dict(report)


def cmd_search(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.search(args.query, k=args.k, max_contexts=args.max_contexts, variant=args.variant, **_scope_kwargs(args))


def cmd_answer(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.answer(args.question, k=args.k, **_scope_kwargs(args))


def cmd_stats(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.stats(**_scope_kwargs(args))


def cmd_list(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.list(args.kind, **_scope_kwargs(args))


def cmd_get(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.get(args.id, **_scope_kwargs(args))


def cmd_users(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.users()


def cmd_demo(mem: Memory, args: argparse.Namespace) -> Any:
    from anchormem.cli.demo import run_demo

    return run_demo(mem.settings, keep=args.keep, as_json=args.json, quiet=args.quiet)


COMMANDS: dict[str, Callable[[Memory, argparse.Namespace], Any]] = {
    "add": cmd_add,
    "search": cmd_search,
    "answer": cmd_answer,
    "stats": cmd_stats,
    "list": cmd_list,
    "get": cmd_get,
    "users": cmd_users,
    "demo": cmd_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        handler = getattr(args, "handler", None)
        if handler is not None:  # commands that build their own memories (eval)
            result = handler(args)
            if result is not None:
                print(
                    json.dumps(output.to_jsonable(result), indent=2, ensure_ascii=False)
                    if args.json
                    else output.to_text(result)
                )
            return 0
        with Memory(settings_from(args)) as mem:
            result = COMMANDS[args.command](mem, args)
            if result is not None:
                print(
                    json.dumps(output.to_jsonable(result), indent=2, ensure_ascii=False)
                    if args.json
                    else output.to_text(result)
                )
    except AnchorMemError as exc:
        print(f"anchormem: error: {output.one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("anchormem: interrupted (everything committed so far is kept)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
