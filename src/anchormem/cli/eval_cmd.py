"""``anchormem eval``: LoCoMo evaluation commands (registered into the main parser)."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem.cli import eval_answers_cmd
from anchormem.cli.common import flag, positive_int, settings_from, store_options

if TYPE_CHECKING:
    from anchormem.config import LLMSettings, Settings
    from anchormem.eval.runner import EvalConfig


def register(sub: Any) -> None:
    p = sub.add_parser("eval", help="evaluate: LoCoMo, the answers benchmark (see: anchormem eval --help)")
    inner = p.add_subparsers(dest="eval_command", required=True, metavar="EVAL_COMMAND")
    s = inner.add_parser("score", help="score an answers file (F1, BLEU-1) against LoCoMo")
    s.add_argument("--data", required=True, help="LoCoMo file (locomo10.json)")
    s.add_argument("--answers", required=True, help="JSONL with sample_id, qa_index, answer")
    s.add_argument("--samples", help="comma-separated sample ids (default: all)")
    store_options(s)
    s.set_defaults(handler=cmd_score)

    s = inner.add_parser("locomo", help="the paper's evaluation: build memories, ask every question, report")
    _run_options(s)
    s.add_argument("--k", type=positive_int, default=10, help="top-k facts and events (default 10)")
    s.add_argument("--tau", type=float, default=0.85, help="fact similarity threshold of the event graph")
    s.add_argument("--n-neighbors", type=positive_int, default=3, help="neighbours per fact in the event graph (N)")
    store_options(s)
    s.set_defaults(handler=cmd_locomo)

    s = inner.add_parser("sweep", help="the LoCoMo evaluation over a grid of tau, N and k")
    _run_options(s)
    s.add_argument("--k", type=_ints, default=(10,), help="comma-separated top-k values (default 10)")
    s.add_argument("--tau", type=_floats, default=(0.85,), help="comma-separated tau values (default 0.85)")
    s.add_argument(
        "--n", "--n-neighbors", dest="n", type=_ints, default=(3,), help="comma-separated N values (default 3)"
    )
    store_options(s)
    s.set_defaults(handler=cmd_sweep)
    eval_answers_cmd.register(inner)


def _run_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--data", required=True, help="LoCoMo file (locomo10.json)")
    s.add_argument("--out", required=True, help="run directory (memory, cache, results, report)")
    s.add_argument("--samples", help="comma-separated sample ids (default: all)")
    s.add_argument("--facts", help="precomputed facts JSONL (default: extract with the LLM, else offline)")
    s.add_argument("--events", help="precomputed events JSONL (default: integrate with the LLM, else extractive)")
    flag(s, "--no-answer", help="retrieval only: score evidence recall")
    s.add_argument("--max-contexts", type=positive_int, help="at most this many contexts (default: k)")
    s.add_argument(
        "--max-chars",
        type=positive_int,
        help="at most this many characters of context text per question (default: retrieval.max_chars, 10000)",
    )
    from anchormem.eval.variants import eval_variants

    s.add_argument(
        "--variant",
        default="anchormem",
        choices=eval_variants(),
        metavar="VARIANT",
        help=f"retrieval recipe, or no-context (anchor facts shown instead of contexts): {', '.join(eval_variants())}",
    )
    g = s.add_argument_group("reader and judge (default: the extraction LLM, then the reader)")
    for role in ("reader", "judge"):
        g.add_argument(f"--{role}-url", help=f"{role} OpenAI-compatible base URL")
        g.add_argument(f"--{role}-model", help=f"{role} model name")
        g.add_argument(f"--{role}-key", help=f"{role} API key")


def _split(text: str, kind: Callable[[str], Any]) -> tuple[Any, ...]:
    try:
        values = tuple(kind(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from exc
    if not values:
        raise argparse.ArgumentTypeError("expected at least one value")
    return values


def _ints(text: str) -> tuple[int, ...]:
    values: tuple[int, ...] = _split(text, int)
    return tuple(positive_int(str(v)) for v in values)


def _floats(text: str) -> tuple[float, ...]:
    return _split(text, float)


def cmd_score(args: argparse.Namespace) -> Any:
    from anchormem.eval.score import format_markdown, score_answers

    samples = args.samples.split(",") if args.samples else None
    report = score_answers(args.data, args.answers, samples=samples)
    if args.json:
        return report.to_dict()
    return format_markdown(report)


def _role(args: argparse.Namespace, role: str, fallback: LLMSettings | None) -> LLMSettings | None:
    from dataclasses import replace

    from anchormem.config import LLMSettings
    from anchormem.errors import ConfigError

    url, model, key = (getattr(args, f"{role}_{part}") for part in ("url", "model", "key"))
    if not (url or model or key):
        return None
    url = url or (fallback.base_url if fallback is not None else None)
    model = model or (fallback.model if fallback is not None else None)
    if not url or not model:
        raise ConfigError(
            f"the {role} needs a URL and a model: --{role}-url and --{role}-model (or --llm-url/--llm-model)"
        )
    if fallback is not None:
        return replace(fallback, base_url=url, model=model, api_key=key or fallback.api_key)
    return LLMSettings(base_url=url, model=model, api_key=key)


def _config(args: argparse.Namespace, **grid: Any) -> EvalConfig:
    from anchormem.eval.runner import EvalConfig

    settings: Settings = settings_from(args)
    if getattr(args, "max_chars", None):
        settings = dataclasses.replace(
            settings, retrieval=dataclasses.replace(settings.retrieval, max_chars=args.max_chars)
        )
    reader = _role(args, "reader", settings.llm)
    judge = _role(args, "judge", reader or settings.llm)
    return EvalConfig(
        data=Path(args.data),
        out=Path(args.out).expanduser(),
        samples=tuple(s.strip() for s in args.samples.split(",") if s.strip()) if args.samples else None,
        facts=Path(args.facts) if args.facts else None,
        events=Path(args.events) if args.events else None,
        answer=not args.no_answer,
        max_contexts=args.max_contexts,
        variant=args.variant,
        settings=settings,
        reader=reader,
        judge=judge,
        store=Path(args.store).expanduser() if args.store else None,
        **grid,
    )


def cmd_locomo(args: argparse.Namespace) -> Any:
    from anchormem.cli.progress import Bars
    from anchormem.eval.runner import run_locomo

    config = _config(args, k=args.k, tau=args.tau, n_neighbors=args.n_neighbors)
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        result = run_locomo(config, progress=bars)
    if args.json:
        return {**result.report.to_dict(), "asked": result.asked, "resumed": result.skipped}
    return (
        result.report.to_markdown() + f"\n{result.asked} questions asked now, {result.skipped} already "
        f"done; results in {result.out}/ (report.md, report.json, retrieval.jsonl)"
    )


def cmd_sweep(args: argparse.Namespace) -> Any:
    from anchormem.cli.progress import Bars
    from anchormem.eval.sweep import SweepConfig, format_sweep, run_sweep

    if args.store:
        from anchormem.errors import ConfigError

        raise ConfigError("the sweep keeps one memory per (tau, N) inside --out; --store does not apply")
    config = SweepConfig(base=_config(args), taus=args.tau, ns=args.n, ks=args.k)
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        table = run_sweep(config, progress=bars)
    return table if args.json else format_sweep(table) + f"\nresults in {config.base.out}/"
