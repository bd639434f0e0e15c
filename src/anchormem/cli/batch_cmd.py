"""``anchormem batch export | import``: the LLM requests of ``add --batch`` as OpenAI Batch API files, and their
results read back (see docs/batch.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchormem.cli.common import positive_int, scope_kwargs, scope_options, store_options, with_memory
from anchormem.cli.progress import Bars

if TYPE_CHECKING:
    from anchormem.memory import Memory


def register(sub: Any) -> None:
    p = sub.add_parser(
        "batch",
        help="batch ingest: write the LLM requests that 'add --batch' left waiting, read the results file back",
    )
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    e = steps.add_parser(
        "export",
        help="write every LLM request that waits for a batch answer as an OpenAI Batch API input file "
        "(JSONL: custom_id, method, url, body); prints the files written, none when nothing waits",
    )
    e.add_argument("file", help="the input file to write (with --part-size: FILE's stem .partNNN.jsonl)")
    e.add_argument("--part-size", type=positive_int, help="at most this many requests per file")
    store_options(e)
    e.set_defaults(handler=with_memory(cmd_export))
    i = steps.add_parser(
        "import",
        help="read an OpenAI Batch API results file: store its answers, derive the facts and events they allow, "
        "report every line that gave no answer (malformed, duplicate, failed, unknown); safe to repeat. What it "
        "asks next (events after facts) waits for the next export",
    )
    i.add_argument("file", help="the results file (JSONL: custom_id, response.body, error)")
    scope_options(i)
    store_options(i)
    i.set_defaults(handler=with_memory(cmd_import))


def cmd_export(mem: Memory, args: argparse.Namespace) -> Any:
    written = mem.batch_export(Path(args.file), part_size=args.part_size)
    if args.json:
        return {"files": [str(p) for p in written]}
    return "\n".join(str(p) for p in written) if written else "nothing waits for a batch answer"


def cmd_import(mem: Memory, args: argparse.Namespace) -> Any:
    with Bars(enabled=not (args.quiet or args.json)) as bars:
        done = mem.batch_import(Path(args.file), progress=bars, **scope_kwargs(args))
    if args.json:
        return {
            **done.results.summary(),
            "derived": {
                "/".join(x for x in (s.user_id, s.agent_id, s.run_id) if x): report
                for s, report in done.derived.items()
            },
            "waiting": done.waiting,
        }
    return done.describe()
