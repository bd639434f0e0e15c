"""``anchormem maintenance scrub``: rewrite the store's files without the bytes of deleted rows
(registered into the main parser; see docs/forgetting.md for what each store guarantees)."""

from __future__ import annotations

import argparse
from typing import Any

from anchormem.cli.common import open_memory, store_options


def register(sub: Any) -> None:
    p = sub.add_parser("maintenance", help="store upkeep: scrub deleted bytes from the store's files")
    tasks = p.add_subparsers(dest="task", required=True, metavar="TASK")
    s = tasks.add_parser(
        "scrub",
        help="rewrite the store without the bytes of deleted rows (PostgreSQL: VACUUM FULL of the memory "
        "tables, then CHECKPOINT; it locks each table while rewriting it. SQLite: checkpoint and truncate the WAL)",
    )
    store_options(s)
    s.set_defaults(handler=cmd_scrub)


def cmd_scrub(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        mem.store.scrub(full=True)
    return "scrubbed: the store's table files no longer hold deleted rows (see docs/forgetting.md for the WAL)"
