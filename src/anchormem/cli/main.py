"""The ``anchormem`` command: a thin shell over :class:`anchormem.Memory`.

Each command module registers its subcommands with a ``handler(args) -> result``
(:mod:`anchormem.cli.common`); :func:`main` runs it and prints the result, as text or
``--json``. Errors from the library become one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from anchormem import __version__
from anchormem.cli import batch_cmd, demo, eval_cmd, lifecycle_cmd, maintenance_cmd, memory_cmd, serve_cmd
from anchormem.cli.text import to_text
from anchormem.errors import AnchorMemError
from anchormem.wire.serialize import one_line, to_jsonable

EXIT_ERROR = 1
EXIT_USAGE = 2

COMMAND_MODULES = (memory_cmd, batch_cmd, demo, eval_cmd, lifecycle_cmd, maintenance_cmd, serve_cmd)
"""Every command module, in the order ``anchormem --help`` lists their commands."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="anchormem",
        description="Long-term memory for LLM agents (AnchorMem: facts as anchors, original words as memory).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        result = args.handler(args)
        if result is not None:
            print(_render(result, as_json=args.json))
    except AnchorMemError as exc:
        print(f"anchormem: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("anchormem: interrupted (everything committed so far is kept)", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return 0


def _render(result: Any, *, as_json: bool) -> str:
    if as_json:
        return json.dumps(to_jsonable(result), indent=2, ensure_ascii=False)
    return to_text(result)


if __name__ == "__main__":
    sys.exit(main())
