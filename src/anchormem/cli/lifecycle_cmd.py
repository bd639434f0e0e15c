"""``anchormem update | delete | history | export | import``: the memory's lifecycle (registered into the main
parser)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from anchormem.cli.common import flag, open_memory, positive_int, scope_kwargs, subcommand
from anchormem.errors import InputError
from anchormem.wire.serialize import to_jsonable


def register(sub: Any) -> None:
    with subcommand(
        sub, "update", "replace one turn's text and re-derive what came from it (the old text is forgotten)", cmd_update
    ) as p:
        p.add_argument("turn_id", metavar="TURN_ID", help="the turn's id, e.g. D3:7 (see: anchormem list turns)")
        p.add_argument("text", metavar="TEXT", help="the turn's new text (- reads it from stdin)")
    with subcommand(
        sub, "delete", "forget a session, turn or context (and all derived from it), or a whole user", cmd_delete
    ) as p:
        target = p.add_mutually_exclusive_group(required=True)
        target.add_argument("--session", help="session label, e.g. 3")
        target.add_argument("--turn", help="turn id, e.g. D3:7")
        target.add_argument("--context", help="context id (c-…): deletes the turns it holds")
        flag(target, "--all", help="the whole memory (every agent/run of the user unless --agent/--run narrow it)")
    with subcommand(sub, "history", "the append-only record of changes to a memory", cmd_history) as p:
        p.add_argument("--limit", type=positive_int, help="only the newest N entries")
    with subcommand(sub, "export", "write a user's memory as JSONL (stdout, or --out FILE)", cmd_export) as p:
        p.add_argument("--out", help="file to write (written whole, then renamed into place)")
    with subcommand(sub, "import", "load a JSONL export into empty scopes of the store", cmd_import, scoped=False) as p:
        p.add_argument("file", help="the export (JSONL; - for stdin)")


def cmd_update(args: argparse.Namespace) -> Any:
    text = sys.stdin.read() if args.text == "-" else args.text
    with open_memory(args) as mem:
        return to_jsonable(mem.update(args.turn_id, text, **scope_kwargs(args)))


def cmd_delete(args: argparse.Namespace) -> Any:
    target = {"session": args.session, "turn": args.turn, "context": args.context, "all": args.all}
    with open_memory(args) as mem:
        return to_jsonable(mem.delete(**scope_kwargs(args), **target))


def cmd_history(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        entries = mem.history(limit=args.limit, **scope_kwargs(args))
    if args.json:
        return to_jsonable(entries)
    return [history_line(e) for e in entries] or "(no history)"


def history_line(entry: Any) -> str:
    import time

    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.timestamp))
    where = " / ".join(x for x in (entry.scope.user_id, entry.scope.agent_id, entry.scope.run_id) if x)
    detail = ", ".join(f"{k}={v}" for k, v in sorted(entry.detail.items()) if v not in (0, None, [], {}, ""))
    return f"{entry.seq:>6}  {when}  {entry.op:<7} {where}  {detail}"


def cmd_export(args: argparse.Namespace) -> None:
    with open_memory(args) as mem:
        records = mem.export(**scope_kwargs(args))
        if not args.out:
            for record in records:
                sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            sys.stdout.flush()
            return
        out = Path(args.out).expanduser()
        tmp = out.with_name(out.name + ".part")
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                for record in records:
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            os.replace(tmp, out)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise InputError(f"cannot write {out}: {exc.strerror}") from exc


def cmd_import(args: argparse.Namespace) -> Any:
    with open_memory(args) as mem:
        return to_jsonable(mem.import_records(read_jsonl(args.file)))


def read_jsonl(path: str) -> Iterator[Any]:
    """Records of a JSONL file, one per non-empty line; malformed lines raise InputError naming the line."""
    try:
        fh = sys.stdin.buffer if path == "-" else open(Path(path).expanduser(), "rb")  # noqa: SIM115
    except FileNotFoundError as exc:
        raise InputError(f"file not found: {path}") from exc
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"{path}: line {lineno} is not UTF-8 text") from exc
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}: line {lineno} is not valid JSON: {exc.msg}") from exc
            except RecursionError as exc:
                raise InputError(f"{path}: line {lineno} is nested too deeply") from exc
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
