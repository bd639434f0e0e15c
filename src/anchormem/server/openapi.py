"""Write the OpenAPI document: ``python -m anchormem.server.openapi docs/openapi.json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def render() -> str:
    from anchormem.server.app import openapi_schema

    schema: dict[str, Any] = openapi_schema()
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write_to(text: str, argv: list[str] | None) -> int:
    """Write ``text`` to the file named first in ``argv`` (default ``sys.argv[1:]``), else to stdout."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    return write_to(render(), argv)


if __name__ == "__main__":
    sys.exit(main())
