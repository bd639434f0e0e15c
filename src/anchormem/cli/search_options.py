"""``--exact-scope``, ``--filter``, ``--session``, ``--since`` and ``--until``: what narrows a search or
an answer to some of a memory's messages (see docs/search.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from anchormem.cli.common import flag

FILTER_HELP = (
    "only messages whose metadata has KEY equal to VALUE (repeatable: every pair must match); VALUE is read as "
    'JSON when it is JSON (2, true, "2"), else as text'
)


def key_value(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a pair, the value read as JSON when it is JSON, else kept as text."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    return key.strip(), value


def narrowing_options(p: argparse.ArgumentParser) -> None:
    """The options that narrow a search: sub-scopes, metadata, session and time range."""
    flag(p, "--exact-scope", help="search only the exact scope given, not the agents and runs under it")
    p.add_argument("--filter", action="append", type=key_value, metavar="KEY=VALUE", help=FILTER_HELP)
    p.add_argument("--session", help="only messages of this session label")
    p.add_argument(
        "--since",
        help="only messages at or after this time (ISO 8601 or Unix seconds); messages without a known time "
        "are left out when --since or --until is given",
    )
    p.add_argument("--until", help="only messages at or before this time (ISO 8601 or Unix seconds)")


def narrowing_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``Memory.search``/``answer`` for those options."""
    return {
        "include_subscopes": not args.exact_scope,
        "filters": dict(args.filter) if args.filter else None,
        "session": args.session,
        "since": args.since,
        "until": args.until,
    }
