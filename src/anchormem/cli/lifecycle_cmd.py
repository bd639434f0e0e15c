"""``anchormem update | delete | history | export | import``: the memory's lifecycle (registered into the main
parser)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem._util.files import lines_limited
from anchormem.cli.common import flag, open_memory, positive_int, scope_kwargs, subcommand
from anchormem.cli.remote import MemoryCommand, argument, local_only, memory_command, memory_commands
from anchormem.errors import InputError
from anchormem.wire.scopes import describe, scope_of
from anchormem.wire.serialize import to_jsonable
from anchormem.wire.validation import MAX_TEXT_CHARS

if TYPE_CHECKING:
    from anchormem.client import Client
    from anchormem.lifecycle.preview import DeletePreview
    from anchormem.memory import Memory


def register(sub: Any) -> None:
    memory_commands(
        sub,
        (
            MemoryCommand(
                "update",
                "replace one turn's text and re-derive what came from it (the old text is forgotten)",
                cmd_update,
                (
                    argument("turn_id", metavar="TURN_ID", help="the turn's id, e.g. D3:7 (see: anchormem list turns)"),
                    argument("text", metavar="TEXT", help="the turn's new text (- reads it from stdin)"),
                ),
            ),
        ),
    )
    with memory_command(
        sub, "delete", "forget a session, turn or context (and all derived from it), or a whole user", cmd_delete
    ) as p:
        target = p.add_mutually_exclusive_group(required=True)
        target.add_argument("--session", help="session label, e.g. 3")
        target.add_argument("--turn", help="turn id, e.g. D3:7")
        target.add_argument("--context", help="context id (c-…): deletes the turns it holds")
        flag(
            target,
            "--all",
            help="the whole memory (every agent/run of the user unless --agent/--run narrow it); asks for "
            "confirmation unless --yes",
        )
        flag(p, "--yes", "-y", help="do not ask before deleting --all (needed when stdin is not a terminal)")
        flag(p, "--dry-run", help="show what the delete would remove (counts and ids) and delete nothing")
    memory_commands(
        sub,
        (
            MemoryCommand(
                "history",
                "the append-only record of changes to a memory",
                cmd_history,
                (argument("--limit", type=positive_int, help="only the newest N entries"),),
                reads=True,
            ),
            MemoryCommand(
                "export",
                "write a user's memory as JSONL (stdout, or --out FILE)",
                cmd_export,
                (argument("--out", help="file to write (written whole, then renamed into place)"),),
                reads=True,
            ),
        ),
    )
    with subcommand(
        sub,
        "import",
        "load a JSONL export into empty scopes of the store",
        local_only(cmd_import, "import writes a store directly (the REST API has no import)"),
        scoped=False,
    ) as p:
        p.add_argument("file", help="the export (JSONL; - for stdin)")


def cmd_update(mem: Memory | Client, args: argparse.Namespace) -> Any:
    text = read_stdin_text() if args.text == "-" else args.text
    return to_jsonable(mem.update(args.turn_id, text, **scope_kwargs(args)))


def read_stdin_text() -> str:
    """A turn's new text from stdin, read with a bound (four bytes a character of the longest text)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text stream (a test's, an embedding program's)
        text: str = sys.stdin.read(MAX_TEXT_CHARS + 1)
    else:
        raw = stream.read(4 * MAX_TEXT_CHARS + 1)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError("the text on stdin is not UTF-8") from exc
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"the text on stdin is longer than {MAX_TEXT_CHARS:,} characters")
    return text


def cmd_delete(mem: Memory | Client, args: argparse.Namespace) -> Any:
    from anchormem.memory import Memory as Local  # imported here: the CLI starts without numpy

    target = {"session": args.session, "turn": args.turn, "context": args.context, "all": args.all}
    if args.dry_run:
        if not isinstance(mem, Local):
            raise InputError(
                "--dry-run reads the store itself and the REST API has no delete preview: run it where the store "
                "is (--store), or see the server's inspector (/ui)"
            )
        return {"dry_run": True, **to_jsonable(dry_run(mem, args, target))}
    if args.all and not args.yes:
        confirm_all(mem, args)
    return to_jsonable(mem.delete(**scope_kwargs(args), **target))


def dry_run(mem: Memory, args: argparse.Namespace, target: dict[str, Any]) -> DeletePreview:
    """What the delete would remove now (the same resolution and cascade), nothing deleted."""
    from anchormem.lifecycle.preview import preview_delete

    scope = scope_of(scope_kwargs(args), "delete")
    llm = mem.llm  # the cache a delete forgets from: the configured one, else the file an earlier one left
    cache = llm if llm is not None and hasattr(llm, "forget_containing") else mem.settings.cache_path
    return preview_delete(mem.store, scope.user_id, scope.agent_id, scope.run_id, **target, cache=cache)


def confirm_all(mem: Memory | Client, args: argparse.Namespace) -> None:
    """Ask on the terminal before ``delete --all``; without a terminal (a script, a pipe) ``--yes`` is needed."""
    whose = describe(scope_of(scope_kwargs(args), "delete"))
    if not sys.stdin.isatty():
        raise InputError(
            f"delete --all forgets the whole memory of {whose} and cannot be undone: add --yes to confirm "
            "(--dry-run shows what it would delete)"
        )
    print(f"Delete the whole memory of {whose} (every agent and run under it)? This cannot be undone.", file=sys.stderr)
    answer = input("Type 'yes' to delete: ")
    if answer.strip().lower() not in ("y", "yes"):
        raise InputError("not confirmed: nothing was deleted")


def cmd_history(mem: Memory | Client, args: argparse.Namespace) -> Any:
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


def cmd_export(mem: Memory | Client, args: argparse.Namespace) -> None:
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
        for lineno, raw in lines_limited(fh, path):
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
