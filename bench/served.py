"""A local ``anchormem serve`` for the service benchmarks: a free loopback port, and a wait until the
server answers its health check (or dies, or the deadline passes, when its log's tail is printed)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_healthy(base: str, server: subprocess.Popen[bytes], log: Path, timeout: float) -> bool:
    """True once ``base``/v1/health answers 200; False (with the log's tail on stderr) when the server
    exits or ``timeout`` seconds pass first."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            print(log.read_text()[-2000:], file=sys.stderr)
            return False
        time.sleep(0.2)


def stop(server: subprocess.Popen[bytes]) -> None:
    """End a server the bench started: terminate, then kill if it has not exited in 30 s."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
