"""The MCP stdio server answers every line (issue 30, item 8): a call nested past the limit, one holding an
escaped lone surrogate or broken JSON gets a JSON-RPC error with its id and a log line, never silence."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from anchormem.memory import Memory
from anchormem.server.mcp import build_server
from anchormem.server.mcp_stdio import INVALID_PARAMS, INVALID_REQUEST, MAX_DEPTH, PARSE_ERROR, run_stdio, screen


def call(request_id: int | str, arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "add_memory", "arguments": arguments},
    }


def nested(levels: int) -> str:
    """A tools/call whose messages' metadata nests ``levels`` lists deep, as JSON text."""
    head = json.dumps(call(7, {"messages": [{"role": "user", "content": "hi", "metadata": {"x": "@"}}]}))
    return head.replace('"@"', "[" * levels + "]" * levels)


SURROGATE = json.dumps(call("s-1", {"messages": [{"role": "user", "content": "@"}]})).replace('"@"', '"a\\ud800b"')
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 200, 250, 1000, 5000])
def test_a_call_nested_too_deep_is_refused_with_its_id(levels: int) -> None:
    found = screen(nested(levels))
    assert found is not None and found[0] == INVALID_REQUEST and found[2] == 7
    assert f"limit is {MAX_DEPTH}" in found[1]


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\udc00x", "x\\ud83d"])
def test_an_escaped_lone_surrogate_is_refused_with_its_id(escape: str) -> None:
    line = json.dumps(call(3, {"messages": [{"role": "user", "content": "@"}]})).replace('"@"', f'"{escape}"')
    found = screen(line)
    assert found is not None and found[0] == INVALID_PARAMS and found[2] == 3
    key = json.dumps(call(4, {"messages": []})).replace('"messages"', '"\\udead"')
    assert screen(key) is not None, "in a key too"


def test_good_lines_pass_and_broken_json_is_a_parse_error() -> None:
    assert screen(json.dumps(INITIALIZE)) is None
    assert screen(nested(MAX_DEPTH - 10)) is None
    assert (
        screen(json.dumps(call(5, {"messages": [{"role": "user", "content": "[" * 500 + " 😀 \\ud83d\\ude00"}]})))
        is None
    )
    assert screen(json.dumps({"id": 5, "text": "\ud83d\ude00"}, ensure_ascii=True)) is None, "a proper pair is fine"
    found = screen('{"jsonrpc": "2.0", "id": 9, "method": ')
    assert found is not None and found[0] == PARSE_ERROR and found[2] is None


class ClientStdin(io.StringIO):
    """A client's side of stdio: it keeps its input open until the reply to request ``awaited`` (an id) has come
    (or 30 s), as a real MCP client does, so the server's end of input never races the last request's reply. (A
    text to wait for would race: the initialize reply already says ``"tools":`` among its capabilities.)"""

    def __init__(self, text: str, out: io.StringIO, awaited: int) -> None:
        super().__init__(text)
        self.out, self.awaited = out, awaited

    def _answered(self) -> bool:
        for line in self.out.getvalue().splitlines():
            try:
                if json.loads(line).get("id") == self.awaited:
                    return True
            except ValueError:  # a reply being written
                continue
        return False

    def readline(self, size: int | None = -1) -> str:
        line = super().readline(-1 if size is None else size)
        deadline = time.monotonic() + 30
        while not line and not self._answered() and time.monotonic() < deadline:
            time.sleep(0.01)
        return line


def test_the_stdio_server_answers_each_bad_line_and_goes_on(memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    lines = [
        json.dumps(INITIALIZE),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        nested(250),
        SURROGATE,
        "{broken",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    out = io.StringIO()
    with caplog.at_level("WARNING", logger="anchormem.mcp"):
        stdin = ClientStdin("\n".join(lines) + "\n", out, awaited=2)
        run_stdio(build_server(memory, user_id="alice"), stdin=stdin, stdout=out)
    replies = {r.get("id"): r for r in map(json.loads, out.getvalue().splitlines())}
    assert replies[7]["error"]["code"] == INVALID_REQUEST
    assert replies["s-1"]["error"]["code"] == INVALID_PARAMS
    assert replies[None]["error"]["code"] == PARSE_ERROR
    assert "result" in replies[1] and {t["name"] for t in replies[2]["result"]["tools"]} >= {"add_memory"}
    assert len([r for r in caplog.records if "refused" in r.getMessage()]) == 3, "each refusal is logged"
    assert memory.users() == [], "nothing of the refused calls was stored"


def test_the_real_command_answers_a_deep_call_and_a_lone_surrogate(tmp_path: Path) -> None:
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {
        "ANCHORMEM_STORE": str(tmp_path / "mcp.db"),
        "ANCHORMEM_EMBED_BACKEND": "hash",
        "HOME": str(tmp_path),
        "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "PATH": os.environ.get("PATH", ""),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "anchormem", "mcp", "--user", "alice"],
        input="\n".join([json.dumps(INITIALIZE), nested(220), SURROGATE]) + "\n",
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    replies = {r.get("id"): r for r in map(json.loads, proc.stdout.splitlines())}
    assert replies[7]["error"]["code"] == INVALID_REQUEST, proc.stderr[-2000:]
    assert replies["s-1"]["error"]["code"] == INVALID_PARAMS
    assert "result" in replies[1], "the good call before them was answered too"
    assert proc.stderr.count("MCP message refused") == 2, proc.stderr[-2000:]
