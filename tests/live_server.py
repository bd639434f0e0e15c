"""The REST service for real: uvicorn serving ``create_app`` on 127.0.0.1 at a free port, in a thread.

The same app ``anchormem serve`` runs (real sockets, real HTTP), built over the test's own ``Memory``."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn

from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing

ADMIN_KEY = "amk_test_admin"
ALICE_KEY = "amk_test_alice"
AGENTS_KEY = "amk_test_agents"  # agents' own memories only (the path user "-")


@dataclass(frozen=True)
class LiveServer:
    url: str
    admin_key: str = ADMIN_KEY
    alice_key: str = ALICE_KEY
    agents_key: str = AGENTS_KEY


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve(memory: Memory, **app_options: Any) -> Iterator[LiveServer]:
    """Serve ``memory`` until the block ends; keys: ``ADMIN_KEY`` (every user), ``ALICE_KEY`` (alice),
    ``AGENTS_KEY`` (agents' own memories, the path user ``-``)."""
    keys = KeyRing.from_raw({ADMIN_KEY: [], ALICE_KEY: ["alice"], AGENTS_KEY: ["-"]}, admin=[ADMIN_KEY])
    app = create_app(memory, keys, **app_options)
    # port 0: the system picks a free port when uvicorn binds, so parallel runs never collide
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="anchormem-test-server", daemon=True)
    thread.start()
    for _ in range(3000):  # a guard against a hung start (a minute), not a timing check
        if server.started or not thread.is_alive():
            break
        thread.join(0.02)
    if not server.started:
        server.should_exit = True
        raise RuntimeError("the test server did not start (see the log above)")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield LiveServer(f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(30)
