"""``anchormem add | search | answer | stats | list | get | users``: a memory's everyday commands."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem.cli.common import flag, positive_int, scope_kwargs, variant_option
from anchormem.cli.progress import Bars
from anchormem.cli.remote import MemoryCommand, argument, memory_command, memory_commands
from anchormem.cli.search_options import narrowing_kwargs, narrowing_options
from anchormem.errors import InputError
from anchormem.text.times import instant, message_time
from anchormem.wire.serialize import report_dict

if TYPE_CHECKING:
    from anchormem.client import Client
    from anchormem.memory import Memory

KINDS = ("turns", "contexts", "facts", "events")
K_HELP = (
    "facts and events considered (the paper recipe maps the top-k facts to contexts; every recipe returns "
    "at most k events; default 10) and, unless --max-contexts is given, at most k contexts (without --k: 16)"
)


def register(sub: Any) -> None:
    with memory_command(
        sub, "add", "add a conversation (LoCoMo file or JSON/JSONL messages) or one message", cmd_add
    ) as p:
        p.add_argument("file", nargs="?", help="LoCoMo file, or JSON/JSONL messages (see docs/messages.md)")
        p.add_argument("--message", metavar="TEXT", help="add this one message instead of a file")
        p.add_argument("--speaker", help="who said --message (default: user)")
        p.add_argument(
            "--time",
            help="when --message was said: ISO 8601 or Unix seconds (default: now, in UTC), so time filters and "
            "recency see it",
        )
        p.add_argument(
            "--session",
            help="session label of --message (default: one of its own per day, message-YYYY-MM-DD of its time)",
        )
        p.add_argument("--sample", help="LoCoMo sample id to add (e.g. conv-26)")
        flag(p, "--all-samples", help="add every LoCoMo sample, each as its own run (--run = sample id)")
        p.add_argument("--facts", help="precomputed facts JSONL (records with dia_ids and facts)")
        p.add_argument("--events", help="precomputed events JSONL (records with event and source_facts)")
        flag(
            p,
            "--readd",
            help="store again messages a delete removed (by default a re-sent deleted message is skipped)",
        )
        flag(
            p,
            "--batch",
            help="send the LLM requests through batch files instead of live calls: the messages are stored and "
            "searchable now, the requests wait for 'anchormem batch export' (see docs/batch.md)",
        )
    with memory_command(sub, "search", "retrieve memories for a query, with provenance", cmd_search, reads=True) as p:
        p.add_argument("query")
        p.add_argument("--k", type=positive_int, help=K_HELP)
        p.add_argument(
            "--max-contexts", type=positive_int, help="at most this many contexts (default: --k if given, else 16)"
        )
        p.add_argument(
            "--max-chars",
            type=positive_int,
            help="at most this many characters of context text (default: retrieval.max_chars, 10000)",
        )
        variant_option(p)
        narrowing_options(p)
    with memory_command(
        sub, "answer", "answer a question from memory with the configured LLM", cmd_answer, reads=True
    ) as p:
        p.add_argument("question")
        p.add_argument("--k", type=positive_int, help=K_HELP)
        narrowing_options(p)
    memory_commands(
        sub,
        (
            MemoryCommand("stats", "counts of contexts, facts, events and LLM usage", cmd_stats, reads=True),
            MemoryCommand(
                "list",
                "list turns, contexts, facts or events of a memory",
                cmd_list,
                (argument("kind", choices=KINDS),),
                reads=True,
            ),
            MemoryCommand(
                "get", "show one record by id (c-…, f-…, e-… or a turn id)", cmd_get, (argument("id"),), reads=True
            ),
            MemoryCommand(
                "users", "list the memories (user / agent / run) in the store", cmd_users, reads=True, scoped=False
            ),
        ),
    )


def cmd_add(mem: Memory | Client, args: argparse.Namespace) -> Any:
    if (args.file is None) == (args.message is None):
        raise InputError("add needs a FILE or --message TEXT (one of them)")
    if args.message is None:
        given = [f"--{n}" for n in ("speaker", "time", "session") if getattr(args, n) is not None]
        if given:
            raise InputError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to --message")
    from anchormem.memory import Memory as Local  # imported here: the CLI starts without numpy

    source: Any = Path(args.file) if args.file is not None else one_message(args)
    if not isinstance(mem, Local):  # through --url
        local = [f"--{n.replace('_', '-')}" for n in ("facts", "events", "all_samples") if getattr(args, n)]
        if local:
            raise InputError(f"{', '.join(local)} need the local store: the server's add takes messages only")
        return report_dict(mem.add(source, sample=args.sample, readd=args.readd, **scope_kwargs(args)))
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        if args.all_samples:
            if args.message is not None:
                raise InputError("--all-samples reads a LoCoMo file, not --message")
            if args.sample or args.run:
                raise InputError("--all-samples cannot be combined with --sample or --run")
            from anchormem.eval.locomo import add_all

            reports = add_all(
                mem,
                source,
                user_id=args.user,
                agent_id=args.agent,
                facts=args.facts,
                events=args.events,
                progress=bars,
                batch=args.batch,
            )
            return {name: report_dict(r) for name, r in reports.items()}
        if args.file is not None and (args.sample or args.facts or args.events):  # a LoCoMo sample, a pack
            from anchormem.eval.locomo import add_locomo

            files = {"sample": args.sample, "facts": args.facts, "events": args.events}
            report = add_locomo(
                mem, source, progress=bars, readd=args.readd, batch=args.batch, **files, **scope_kwargs(args)
            )
        else:
            report = mem.add(source, progress=bars, readd=args.readd, batch=args.batch, **scope_kwargs(args))
    return report_dict(report)


def one_message(args: argparse.Namespace, now: datetime | None = None) -> dict[str, Any]:
    """The message ``add --message`` adds: its speaker (default ``user``), its time (``--time``, default now
    in UTC, so time filters and recency see it) and its session (``--session``, default one of its own per
    day, ``message-YYYY-MM-DD`` of its time, never beside a conversation's numbered sessions)."""
    when = args.time if args.time is not None else (now or datetime.now(UTC)).isoformat(timespec="seconds")
    shown, _ = message_time(when, "--time", "add --message")
    moment = instant(shown, str(when))
    if moment is None:
        raise InputError(f"--time must be ISO 8601 (2024-05-29T14:13:20Z) or Unix seconds, got {str(when)[:40]!r}")
    session = args.session if args.session is not None else f"message-{moment.date().isoformat()}"
    return {"role": args.speaker or "user", "content": args.message, "timestamp": when, "session": session}


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


def cmd_stats(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.stats(**scope_kwargs(args))


def cmd_list(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.records(args.kind, **scope_kwargs(args))


def cmd_get(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.get(args.id, **scope_kwargs(args))


def cmd_users(mem: Memory | Client, args: argparse.Namespace) -> Any:
    return mem.users()
