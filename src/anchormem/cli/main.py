"""The ``anchormem`` command: a thin shell over :class:`anchormem.Memory`.

Each command module registers its subcommands with a ``handler(args) -> result``
(:mod:`anchormem.cli.common`); :func:`main` runs it and prints the result, as text or
``--json``. Errors from the library become one line on stderr and a non-zero exit code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from anchormem import __version__
from anchormem.cli import batch_cmd, demo, eval_cmd, lifecycle_cmd, maintenance_cmd, memory_cmd, serve_cmd
from anchormem.cli.text import to_text
from anchormem.errors import AnchorMemError
from anchormem.wire.serialize import one_line, to_jsonable

EXIT_ERROR = 1
EXIT_USAGE = 2

COMMAND_MODULES = (memory_cmd, batch_cmd, demo, eval_cmd, lifecycle_cmd, maintenance_cmd, serve_cmd)
"""Every command module, in the order ``anchormem --help`` lists their commands."""


SECRET_OPTIONS = ("--api-key", "--llm-key")
SECRET_ENV = ("ANCHORMEM_API_KEY", "ANCHORMEM_LLM_API_KEY", "OPENAI_API_KEY")
_KEY_SHAPE = re.compile(r"\b(amk|sk)[-_][A-Za-z0-9_-]{4,}")


def secrets_in(argv: Sequence[str]) -> list[str]:
    """The values of the secret options in ``argv`` and of the secret environment variables."""
    found = [os.environ[name] for name in SECRET_ENV if os.environ.get(name)]
    for i, arg in enumerate(argv):
        name, eq, value = arg.partition("=")
        if name in SECRET_OPTIONS:
            if eq:
                found.append(value)
            elif i + 1 < len(argv):
                found.append(argv[i + 1])
    return [s for s in found if s]


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret (and anything shaped like an API key) replaced by ``***``."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return _KEY_SHAPE.sub(lambda m: f"{m.group(1)}_***", text)


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors never echo a secret (an unknown option's API key, say)."""

    secrets: tuple[str, ...] = ()  # set by main() before parsing; shared by every subcommand's parser

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {redact(message, Parser.secrets)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="anchormem",
        description="Long-term memory for LLM agents (AnchorMem: facts as anchors, original words as memory).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    Parser.secrets = tuple(secrets_in(given))
    args = build_parser().parse_args(given)
    try:
        result = args.handler(args)
        if result is not None:
            print(_render(result, as_json=args.json))
    except AnchorMemError as exc:
        print(f"anchormem: error: {redact(one_line(str(exc)), Parser.secrets)}", file=sys.stderr)
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
