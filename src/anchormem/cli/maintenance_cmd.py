"""``anchormem maintenance scrub``: rewrite the store's files without the bytes of deleted rows
(see docs/forgetting.md for what each store guarantees); ``anchormem maintenance check``: is the store
whole (the database's own check and the store's invariants, :mod:`anchormem.store.sql.check`);
``anchormem maintenance ann-index``: on PostgreSQL, give each scope of at least ``--min-facts`` facts its
HNSW index and drop those of scopes that shrank below half of it (:mod:`anchormem.store.pg_ann`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from anchormem.cli.common import open_memory, subcommand
from anchormem.cli.remote import local_only
from anchormem.errors import ConfigError, StoreError
from anchormem.model import Scope
from anchormem.store.capabilities import AnnIndex, Checkable
from anchormem.store.pg_ann import MIN_FACTS

WHY = "maintenance works on the store's files and tables"


def register(sub: Any) -> None:
    p = sub.add_parser(
        "maintenance",
        help="store upkeep: check the store is whole; scrub deleted bytes from the store's files; index big scopes",
    )
    tasks = p.add_subparsers(dest="task", required=True, metavar="TASK")
    with subcommand(
        tasks,
        "scrub",
        "rewrite the store without the bytes of deleted rows (PostgreSQL: VACUUM FULL of the memory "
        "tables, then CHECKPOINT; it locks each table while rewriting it. SQLite: checkpoint and truncate the WAL)",
        local_only(cmd_scrub, WHY),
        scoped=False,
    ):
        pass
    with subcommand(
        tasks,
        "check",
        "check the store is whole: SQLite's PRAGMA integrity_check, then the store's own invariants (every "
        "fact's context, every context's turns, every event's facts stored; one vector size); reads only. "
        "Exit 1 when a problem is found",
        local_only(cmd_check, WHY),
        scoped=False,
    ):
        pass
    with subcommand(
        tasks,
        "ann-index",
        "PostgreSQL: build the HNSW index of every scope that holds at least --min-facts facts (one at a time, "
        "without blocking writes), drop the index of a scope below half of it. See docs/configuration.md, Stores",
        local_only(cmd_ann_index, WHY),
        scoped=False,
    ) as a:
        a.add_argument(
            "--min-facts",
            type=int,
            default=MIN_FACTS,
            help=f"a scope with this many facts gets an index (default {MIN_FACTS:,})",
        )
        a.add_argument(
            "--maintenance-work-mem",
            default="2GB",
            help="PostgreSQL's memory for one build (default 2GB: the graph of 1,000,000 facts of 384 dimensions; "
            "a build whose graph does not fit is much slower)",
        )


def cmd_scrub(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        mem.store.scrub(full=True)
    return "scrubbed: the store's table files no longer hold deleted rows (see docs/forgetting.md for the WAL)"


def cmd_check(args: argparse.Namespace) -> Any:
    with open_memory(args, create=False) as mem:
        store = mem.store
        if not isinstance(store, Checkable):
            raise StoreError(f"{type(store).__name__} has no check")
        report = store.check()
    if report.ok:
        rows = ", ".join(f"{n} {table}" for table, n in report.checked.items())
        text = f"ok: {report.location}: integrity_check {report.database_check}; invariants hold over {rows}"
        return {"ok": True, **_fields(report)} if args.json else text
    found = "; ".join(report.problems)
    print(
        json.dumps({"ok": False, **_fields(report)}, indent=2) if args.json else f"problems: {report.location}: {found}"
    )
    raise StoreError(
        f"the store check found {len(report.problems)} problem(s) in {report.location}: restore a backup, or "
        "export what still reads and import it into a new store"
    )


def cmd_ann_index(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        store = mem.store
        if not isinstance(store, AnnIndex):
            raise ConfigError("HNSW indexes are for a PostgreSQL store: a SQLite store searches in memory")
        done = store.index_big_scopes(args.min_facts, maintenance_work_mem=args.maintenance_work_mem)
    if args.json:
        return {what: [_scope(s) for s in scopes] for what, scopes in done.items()}
    return "; ".join(
        f"{what}: {', '.join(' '.join(f'{k}={v}' for k, v in _scope(s).items()) for s in scopes) or 'none'}"
        for what, scopes in done.items()
    )


def _scope(scope: Scope) -> dict[str, str]:
    named = {"user_id": scope.user_id, "agent_id": scope.agent_id, "run_id": scope.run_id}
    return {k: v for k, v in named.items() if v}


def _fields(report: Any) -> dict[str, Any]:
    return {
        "location": report.location,
        "integrity_check": report.database_check,
        "checked": report.checked,
        "problems": report.problems,
    }
