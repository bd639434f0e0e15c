"""Reading what a user names as a file, never without bound: ``Memory.add(Path("/dev/zero"))``, a FIFO or a
file that grows while it is read stops at the limit with a clear error instead of filling memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from anchormem.errors import InputError

MAX_FILE_BYTES = 512 * 2**20
"""A conversation file (JSON, JSONL or LoCoMo) or a file of precomputed facts or events: 512 MiB, room for the
most a request may hold (20,000 messages) with their metadata."""
MAX_LINE_BYTES = 64 * 2**20
"""One line of a JSONL stream read line by line (an export being imported)."""
MAX_CONFIG_BYTES = 2**20
"""A TOML config file."""
_CHUNK = 2**20


def read_limited(path: Path, limit: int = MAX_FILE_BYTES, error: type[Exception] = InputError) -> bytes:
    """The bytes of ``path``, read in chunks; more than ``limit`` bytes (a device, a FIFO, a huge file) raises
    ``error`` without reading the rest. A missing or unreadable file raises ``error`` naming it."""
    try:
        with path.open("rb") as fh:
            return _read_at_most(fh, limit, str(path), error)
    except FileNotFoundError as exc:
        raise error(f"file not found: {path}") from exc
    except IsADirectoryError as exc:
        raise error(f"{path} is a directory, not a file") from exc
    except OSError as exc:
        raise error(f"cannot read {path}: {exc.strerror}") from exc


def _read_at_most(fh: BinaryIO, limit: int, name: str, error: type[Exception]) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = fh.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise error(f"{name} is larger than {limit:,} bytes: not read (split it, or check it is the right file)")


def lines_limited(fh: BinaryIO, name: str, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a binary stream, each line at most ``limit`` bytes: a longer one (or a stream
    without line breaks, such as ``/dev/zero``) raises :class:`InputError` naming the line."""
    lineno = 0
    while True:
        raw = fh.readline(limit + 1)
        if not raw:
            return
        lineno += 1
        if len(raw) > limit:
            raise InputError(f"{name}: line {lineno} is longer than {limit:,} bytes")
        yield lineno, raw
