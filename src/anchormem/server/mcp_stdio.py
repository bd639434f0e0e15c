"""``anchormem mcp`` over stdio, with every line read before the MCP SDK sees it.

The SDK drops a line its JSON reader refuses (nested past its recursion limit, an escaped lone
surrogate such as ``"\\ud800"``, broken JSON) without a reply and without a log line, so the agent
waits for an answer that never comes. Here such a line gets a JSON-RPC error reply with the
request's id (``-32700`` parse error, ``-32600`` nested deeper than :data:`MAX_DEPTH`, ``-32602`` a lone
surrogate) and a warning on stderr; a good line goes on unchanged.

While serving, file descriptor 1 points at stderr and 0 at the null device (as the SDK does), so
stray output of a handler cannot corrupt the protocol stream.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

log = logging.getLogger("anchormem.mcp")

MAX_DEPTH = 100
"""The deepest nesting of arrays and objects a message may have (the SDK's reader stops at 200)."""
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_ID = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,30})')


def depth(line: str) -> int:
    """How deeply arrays and objects nest in the JSON text ``line`` (strings skipped)."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:  # cannot be deeper: skip the scan
        return min(MAX_DEPTH, line.count("[") + line.count("{"))
    deepest = level = 0
    in_string = escaped = False
    for c in line:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            level += 1
            deepest = max(deepest, level)
        elif c in "]}":
            level -= 1
    return deepest


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if any("\ud800" <= c <= "\udfff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def screen(line: str) -> tuple[int, str, Any] | None:
    """None when the SDK can read ``line``; else (JSON-RPC error code, message, request id or None)."""
    deepest = depth(line)
    if deepest > MAX_DEPTH:
        found = _ID.search(line)
        request_id = json.loads(found.group(1)) if found else None
        return INVALID_REQUEST, f"Invalid Request: nested {deepest} levels deep; the limit is {MAX_DEPTH}", request_id
    try:
        value = json.loads(line)
    except ValueError as exc:
        return PARSE_ERROR, f"Parse error: {exc}", None
    request_id = value.get("id") if isinstance(value, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if _has_lone_surrogate(value):
        return (
            INVALID_PARAMS,
            "Invalid params: a string holds a lone surrogate (an unpaired \\ud800-\\udfff)",
            request_id,
        )
    return None


class _Wire:
    """The protocol's output: whole lines, one writer at a time (the SDK's and the guard's replies)."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            n = self._out.write(text)
            self._out.flush()
        return n

    def flush(self) -> None:
        with self._lock:
            self._out.flush()


class _GuardedLines:
    """The protocol's input: lines the SDK can read; any other is answered on ``wire`` and skipped."""

    def __init__(self, source: IO[str], wire: _Wire) -> None:
        self._source = source
        self._wire = wire

    def readline(self, size: int | None = -1) -> str:
        while True:
            line = self._source.readline()
            if not line:
                return ""
            if not line.strip():
                continue
            problem = screen(line)
            if problem is None:
                return line
            code, message, request_id = problem
            log.warning("MCP message refused (id %r): %s", request_id, message)
            reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
            self._wire.write(json.dumps(reply) + "\n")

    def __iter__(self) -> Iterator[str]:
        return iter(self.readline, "")


@contextmanager
def _claimed_stdio() -> Iterator[tuple[IO[str], IO[str]]]:
    """The protocol's own copies of stdin and stdout; fds 0 and 1 point elsewhere meanwhile."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        with (
            open(wire_in, encoding="utf-8", errors="replace", closefd=True) as rfile,
            open(wire_out, "w", encoding="utf-8", closefd=True) as wfile,
        ):
            yield rfile, wfile
    finally:
        sys.stderr.flush()


def run_stdio(server: MCPServer, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Serve ``server`` over stdio (or the given text streams) until the input ends."""
    if stdin is not None and stdout is not None:
        anyio.run(_serve, server, stdin, stdout)
        return
    with _claimed_stdio() as (rfile, wfile):
        anyio.run(_serve, server, rfile, wfile)


async def _serve(server: MCPServer, source: IO[str], out: IO[str]) -> None:
    wire = _Wire(out)
    lines = _GuardedLines(source, wire)
    async with stdio_server(anyio.wrap_file(cast(IO[str], lines)), anyio.wrap_file(cast(IO[str], wire))) as (
        read_stream,
        write_stream,
    ):
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
