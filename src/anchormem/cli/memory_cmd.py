"""``anchormem add | search | answer | stats | list | get | users``: a memory's everyday commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem.cli.common import flag, positive_int, scope_kwargs, subcommand, variant_option, with_memory
from anchormem.cli.progress import Bars
from anchormem.cli.remote import remote_options, via_server_or_local
from anchormem.cli.search_options import narrowing_kwargs, narrowing_options
from anchormem.errors import InputError
from anchormem.wire.serialize import report_dict

if TYPE_CHECKING:
    from anchormem.client import Client
    from anchormem.memory import Memory

KINDS = ("turns", "contexts", "facts", "events")
K_HELP = (
    "facts and events considered (the paper recipe maps the top-k facts to contexts; every recipe returns "
    "at most k events) and, unless --max-contexts is given, at most k contexts (default 10)"
)


def register(sub: Any) -> None:
    with subcommand(
        sub, "add", "add a conversation (LoCoMo file or JSON/JSONL messages) or one message", with_memory(cmd_add)
    ) as p:
        p.add_argument("file", nargs="?", help="LoCoMo file, or JSON/JSONL messages (see docs/messages.md)")
        p.add_argument("--message", metavar="TEXT", help="add this one message instead of a file")
        p.add_argument("--speaker", help="who said --message (default: user)")
        p.add_argument("--sample", help="LoCoMo sample id to add (e.g. conv-26)")
        flag(p, "--all-samples", help="add every LoCoMo sample, each as its own run (--run = sample id)")
        p.add_argument("--facts", help="precomputed facts JSONL (records with dia_ids and facts)")
        p.add_argument("--events", help="precomputed events JSONL (records with event and source_facts)")
    with subcommand(
        sub, "search", "retrieve memories for a query, with provenance", via_server_or_local(cmd_search)
    ) as p:
        p.add_argument("query")
        p.add_argument("--k", type=positive_int, help=K_HELP)
        p.add_argument(
            "--max-contexts", type=positive_int, help="at most this many contexts (default: --k if given, else 10)"
        )
        p.add_argument(
            "--max-chars",
            type=positive_int,
            help="at most this many characters of context text (default: retrieval.max_chars, 10000)",
        )
        variant_option(p)
        narrowing_options(p)
        remote_options(p)
    with subcommand(
        sub, "answer", "answer a question from memory with the configured LLM", via_server_or_local(cmd_answer)
    ) as p:
        p.add_argument("question")
        p.add_argument("--k", type=positive_int, help=K_HELP)
        narrowing_options(p)
        remote_options(p)
    with subcommand(sub, "stats", "counts of contexts, facts, events and LLM usage", with_memory(cmd_stats)):
        pass
    with subcommand(sub, "list", "list turns, contexts, facts or events of a memory", with_memory(cmd_list)) as p:
        p.add_argument("kind", choices=KINDS)
    with subcommand(sub, "get", "show one record by id (c-…, f-…, e-… or a turn id)", with_memory(cmd_get)) as p:
        p.add_argument("id")
    with subcommand(
        sub, "users", "list the memories (user / agent / run) in the store", with_memory(cmd_users), scoped=False
    ):
        pass


def cmd_add(mem: Memory, args: argparse.Namespace) -> Any:
    if (args.file is None) == (args.message is None):
        raise InputError("add needs a FILE or --message TEXT (one of them)")
    if args.message is None and args.speaker is not None:
        raise InputError("--speaker applies to --message")
    one = {"role": args.speaker or "user", "content": args.message}
    source: Any = Path(args.file) if args.file is not None else one
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        if args.all_samples:
            if args.message is not None:
                raise InputError("--all-samples reads a LoCoMo file, not --message")
            if args.sample or args.run:
                raise InputError("--all-samples cannot be combined with --sample or --run")
            from anchormem.eval.locomo import add_all

            reports = add_all(
                mem, source, user_id=args.user, agent_id=args.agent, facts=args.facts, events=args.events, progress=bars
            )
            return {name: report_dict(r) for name, r in reports.items()}
        if args.file is not None and (args.sample or args.facts or args.events):  # a LoCoMo sample, a pack
            from anchormem.eval.locomo import add_locomo

            report = add_locomo(
                mem,
                source,
                sample=args.sample,
                facts=args.facts,
                events=args.events,
                progress=bars,
                **scope_kwargs(args),
            )
        else:
            report = mem.add(source, progress=bars, **scope_kwargs(args))
    return report_dict(report)


def cmd_search(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.search(
        args.query,
        k=args.k,
        max_contexts=args.max_contexts,
        max_chars=args.max_chars,
        variant=args.variant,
        **narrowing_kwargs(args),
        **scope_kwargs(args),
    )


def cmd_answer(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.answer(args.question, k=args.k, **narrowing_kwargs(args), **scope_kwargs(args))


def cmd_stats(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.stats(**scope_kwargs(args))


def cmd_list(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.records(args.kind, **scope_kwargs(args))


def cmd_get(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.get(args.id, **scope_kwargs(args))


def cmd_users(mem: Memory, args: argparse.Namespace) -> Any:
    return mem.users()
