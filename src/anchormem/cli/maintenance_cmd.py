"""``anchormem maintenance scrub``: rewrite the store's files without the bytes of deleted rows
(see docs/forgetting.md for what each store guarantees); ``anchormem maintenance check``: is the store
whole (the database's own check and the store's invariants, :mod:`anchormem.store.sql.check`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from anchormem.cli.common import open_memory, store_options
from anchormem.errors import StoreError


def register(sub: Any) -> None:
    p = sub.add_parser(
        "maintenance", help="store upkeep: check the store is whole; scrub deleted bytes from the store's files"
    )
    tasks = p.add_subparsers(dest="task", required=True, metavar="TASK")
    s = tasks.add_parser(
        "scrub",
        help="rewrite the store without the bytes of deleted rows (PostgreSQL: VACUUM FULL of the memory "
        "tables, then CHECKPOINT; it locks each table while rewriting it. SQLite: checkpoint and truncate the WAL)",
    )
    store_options(s)
    s.set_defaults(handler=cmd_scrub)
    c = tasks.add_parser(
        "check",
        help="check the store is whole: SQLite's PRAGMA integrity_check, then the store's own invariants (every "
        "fact's context, every context's turns, every event's facts stored; one vector size); reads only. "
        "Exit 1 when a problem is found",
    )
    store_options(c)
    c.set_defaults(handler=cmd_check)


def cmd_scrub(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        mem.store.scrub(full=True)
    return "scrubbed: the store's table files no longer hold deleted rows (see docs/forgetting.md for the WAL)"


def cmd_check(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        check = getattr(mem.store, "check", None)
        if check is None:
            raise StoreError(f"{type(mem.store).__name__} has no check")
        report = check()
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


def _fields(report: Any) -> dict[str, Any]:
    return {
        "location": report.location,
        "integrity_check": report.database_check,
        "checked": report.checked,
        "problems": report.problems,
    }
