"""AsyncMemory in asyncio code, then the same calls over HTTP with Client and AsyncClient.

Offline: a temporary store, the built-in hashing embedder, and an ``anchormem serve`` started here on
a free loopback port (in your deployment it runs on its own; point ``Client(url, api_key=...)`` at it).

    pip install 'anchormem[server]'
    python examples/async_and_client.py
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from anchormem import Settings
from anchormem.aio import AsyncMemory
from anchormem.client import AsyncClient, Client
from anchormem.errors import AccessDeniedError, ServiceError

CHAT = [
    {"role": "user", "content": "I'm training for the Lisbon half marathon in October.", "session": "1"},
    {"role": "assistant", "content": "Great goal! How many runs a week do you do now?", "session": "1"},
    {"role": "user", "content": "Three, and my knee hurts after long runs.", "session": "1"},
]


async def with_async_memory(store: Path) -> None:
    settings = Settings.load(env={}, store=str(store), embed__backend="hash")
    async with AsyncMemory(settings) as memory:
        await memory.add(CHAT, user_id="maya")
        # independent calls run concurrently, off the event loop
        race, knee = await asyncio.gather(
            memory.search("Which race is Maya training for?", user_id="maya", k=1),
            memory.search("Does Maya have an injury?", user_id="maya", k=1),
        )
        print("AsyncMemory:", race.contexts[0].context.text.splitlines()[1])
        print("AsyncMemory:", knee.contexts[0].context.text.splitlines()[-1])


def start_server(store: Path, keys: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "anchormem", "serve", "--keys", str(keys), "--store", str(store)]
    command += ["--embed-backend", "hash", "--port", str(port), "--log-level", "warning"]
    server = subprocess.Popen(command, env=os.environ.copy(), stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    with Client(url, api_key="") as probe:
        for _ in range(600):
            try:
                probe.health()
                return server, url
            except ServiceError:
                if server.poll() is not None:
                    raise SystemExit("anchormem serve stopped before it listened") from None
                time.sleep(0.1)
    server.terminate()
    raise SystemExit("anchormem serve did not answer within a minute")


def new_key(keys: Path, user: str) -> str:
    command = [sys.executable, "-m", "anchormem", "serve-key", "add", "--keys", str(keys), "--user", user, "--json"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    key: str = json.loads(out)["key"]
    return key


async def with_async_client(url: str, key: str) -> None:
    async with AsyncClient(url, api_key=key) as client:
        result = await client.search("half marathon", user_id="maya", k=1)
        print("AsyncClient:", result.turn_ids[:1], type(result).__name__)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store, keys = Path(tmp) / "memory.db", Path(tmp) / "keys.json"
        asyncio.run(with_async_memory(store))

        key = new_key(keys, "maya")
        server, url = start_server(store, keys)
        try:
            with Client(url, api_key=key) as client:
                result = client.search("Which race is Maya training for?", user_id="maya", k=1)
                print("Client:", result.contexts[0].context.text.splitlines()[1])
                print("Client: stats", client.stats(user_id="maya").turns, "turns")
                try:
                    client.search("anything", user_id="tomas")
                except AccessDeniedError as exc:
                    print("Client: tomas ->", type(exc).__name__, exc.code)  # type: ignore[attr-defined]
            asyncio.run(with_async_client(url, key))
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
