"""``anchormem eval answers`` and ``anchormem eval proxy``: the answers benchmark (registered into
``anchormem eval``; see docs/evaluation.md)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem.cli.common import positive_int, settings_from, store_options

if TYPE_CHECKING:
    from anchormem.eval.answers.bench import AnswersConfig, Role
    from anchormem.eval.answers.memory_batch import MemoryBatch


def register(inner: Any) -> None:
    s = inner.add_parser(
        "answers",
        help="answers benchmark: reader tasks per system, answered live or through batch files, judged, scored",
    )
    _block_options(s)
    s.add_argument("--out", required=True, help="run directory (tasks, key, batch files, answers, report)")
    s.add_argument("--seed", type=int, default=32, help="shuffle seed of the tasks (default 32)")
    s.add_argument("--part-size", type=positive_int, default=100, help="requests per batch file (default 100)")
    s.add_argument("--workers", type=positive_int, default=4, help="requests in flight to a live endpoint")
    for role in ("reader", "judge"):
        g = s.add_argument_group(f"{role} (the judge defaults to the reader)")
        g.add_argument(f"--{role}-url", help=f"{role}: OpenAI-compatible base URL (a live endpoint)")
        g.add_argument(f"--{role}-model", help=f"{role}: model name at that endpoint")
        g.add_argument(f"--{role}-key", help=f"{role}: API key")
        g.add_argument(f"--{role}-batch", metavar="MODEL", help=f"{role}: batch files, requests to MODEL")
        g.add_argument(
            f"--{role}-results",
            action="append",
            default=[],
            metavar="FILE",
            help=f"a batch output file of the {role} requests (repeatable)",
        )
    store_options(s)
    s.set_defaults(handler=cmd_answers)

    s = inner.add_parser("proxy", help="the cheap proxy: each question's answer terms all inside each system's block")
    _block_options(s)
    s.add_argument("--run", help="read the blocks' key of an answers run directory instead of building blocks")
    store_options(s)
    s.set_defaults(handler=cmd_proxy)


def _block_options(s: argparse.ArgumentParser) -> None:
    from anchormem.eval.answers.chats import SPELLINGS, SYSTEMS

    s.add_argument("--data", action="append", default=[], help="chat file in the LoCoMo layout (repeatable)")
    s.add_argument("--samples", help="comma-separated sample ids to keep (default: every chat of the files)")
    s.add_argument("--budget", type=positive_int, default=4000, help="characters per block (default 4000)")
    s.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help=f"comma-separated, of {', '.join(SYSTEMS)} (default all)",
    )
    s.add_argument(
        "--spellings",
        default=",".join(SPELLINGS),
        help="comma-separated, of third (question), named (question_named), user (question_user); default all",
    )
    s.add_argument(
        "--whole-max", type=positive_int, default=60_000, help="the whole chat is a system where it fits this many"
    )
    s.add_argument(
        "--keep-memory",
        metavar="FILE",
        help="a store file that keeps the chats' memories between runs: a later run after a change to the search "
        "or the block adds nothing again (delete it after a change to ingest or the settings)",
    )
    g = s.add_argument_group("memories on the LLM path (default: the offline path)")
    g.add_argument(
        "--memory-batch",
        metavar="MODEL",
        help="build the memories with facts and events MODEL wrote, its requests through batch files: a run stops "
        "while requests wait and writes them to --memory-dir (docs/batch.md)",
    )
    g.add_argument("--memory-dir", help="where the memory requests and answers are kept (default: --out / --run)")
    g.add_argument(
        "--memory-results",
        action="append",
        default=[],
        metavar="FILE",
        help="a batch output file of the memory requests (repeatable)",
    )


def _role(args: argparse.Namespace, role: str) -> Role:
    from anchormem.config import LLMSettings
    from anchormem.errors import ConfigError
    from anchormem.eval.answers.bench import Role

    url, model, key, batch = (getattr(args, f"{role}_{part}") for part in ("url", "model", "key", "batch"))
    results = tuple(Path(p).expanduser() for p in getattr(args, f"{role}_results"))
    if batch and (url or model):
        raise ConfigError(f"--{role}-batch writes batch files: give it or --{role}-url/--{role}-model, not both")
    if batch:
        return Role(batch_model=batch, results=results)
    if url or model:
        if not (url and model):
            raise ConfigError(f"a live {role} needs --{role}-url and --{role}-model")
        return Role(live=LLMSettings(base_url=url, model=model, api_key=key), results=results)
    return Role(results=results)


def _config(args: argparse.Namespace, out: Path) -> AnswersConfig:
    from anchormem.errors import ConfigError
    from anchormem.eval.answers.bench import AnswersConfig
    from anchormem.eval.answers.chats import SPELLINGS, SYSTEMS

    systems = tuple(s.strip() for s in args.systems.split(",") if s.strip())
    spellings = tuple(s.strip() for s in args.spellings.split(",") if s.strip())
    for name, known, what in ((systems, SYSTEMS, "system"), (spellings, tuple(SPELLINGS), "spelling")):
        unknown = [n for n in name if n not in known]
        if unknown or not name:
            raise ConfigError(f"unknown {what} {', '.join(unknown) or '(none)'}; known: {', '.join(known)}")
    settings = replace(settings_from(args), llm=None)  # blocks come from the offline path, unless --memory-batch
    return AnswersConfig(
        out=out,
        data=tuple(Path(p).expanduser() for p in args.data),
        samples=tuple(x.strip() for x in args.samples.split(",") if x.strip()) if args.samples else None,
        budget=args.budget,
        systems=systems,
        spellings=spellings,
        whole_max=args.whole_max,
        settings=settings,
        memory_batch=_memory_batch(args, out),
        keep_memory=Path(args.keep_memory).expanduser() if args.keep_memory else None,
    )


def _memory_batch(args: argparse.Namespace, out: Path) -> MemoryBatch | None:
    from anchormem.errors import ConfigError
    from anchormem.eval.answers.memory_batch import MemoryBatch

    results = tuple(Path(p).expanduser() for p in args.memory_results)
    if args.memory_batch is None:
        if args.memory_dir or results:
            raise ConfigError("--memory-dir and --memory-results go with --memory-batch MODEL")
        return None
    if args.memory_dir is None and getattr(args, "out", None) is None and not getattr(args, "run", None):
        raise ConfigError("--memory-batch needs --memory-dir DIR here (where its requests and answers are kept)")
    where = Path(args.memory_dir).expanduser() if args.memory_dir else out
    return MemoryBatch(model=args.memory_batch, dir=where, results=results)


def cmd_answers(args: argparse.Namespace) -> Any:
    from anchormem.eval.answers.bench import run_answers

    config = replace(
        _config(args, Path(args.out).expanduser()),
        seed=args.seed,
        part_size=args.part_size,
        workers=args.workers,
        reader=_role(args, "reader"),
        judge=_role(args, "judge"),
    )
    return run_answers(config)


def cmd_proxy(args: argparse.Namespace) -> Any:
    from anchormem.eval.answers.bench import proxy_report

    if args.run:
        return proxy_report(_config(args, Path(args.run).expanduser()), from_run=True)
    return proxy_report(_config(args, Path(".")))
