"""``anchormem eval``: LoCoMo evaluation commands (registered into the main parser)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def register(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("eval", help="evaluate on LoCoMo (see: anchormem eval --help)")
    inner = p.add_subparsers(dest="eval_command", required=True, metavar="EVAL_COMMAND")
    s = inner.add_parser("score", help="score an answers file (F1, BLEU-1) against LoCoMo")
    s.add_argument("--data", required=True, help="LoCoMo file (locomo10.json)")
    s.add_argument("--answers", required=True, help="JSONL with sample_id, qa_index, answer")
    s.add_argument("--samples", help="comma-separated sample ids (default: all)")
    common(s)
    s.set_defaults(handler=cmd_score)


def cmd_score(args: argparse.Namespace) -> Any:
    from anchormem.eval.score import format_markdown, score_answers

    samples = args.samples.split(",") if args.samples else None
    report = score_answers(args.data, args.answers, samples=samples)
    if args.json:
        return report.to_dict()
    return format_markdown(report)
