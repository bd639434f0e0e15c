"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests and fault benchmarks (http.server
in a thread), used exactly like a real endpoint.

Each request takes the next step of a script: ``"ok"``, an HTTP status (``500``), or
``("sleep", seconds)``; when the script is used up every request gets ``"ok"``.
:func:`faulty_server` scripts random faults.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Step = str | int | tuple[str, float]


class FakeOpenAIServer:
    def __init__(
        self,
        script: list[Step] | None = None,
        *,
        reply: str | Callable[[dict[str, Any]], str] = "ok",
        usage: bool = True,
        delay: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.script = list(script or [])
        self.reply = reply
        self.usage = usage
        self.delay = delay
        self.extra_headers = headers or {}
        self.requests: list[dict[str, Any]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_step(self) -> Step:
        with self._lock:
            return self.script.pop(0) if self.script else "ok"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            _counted = False  # whether this handler's request still counts in ``server.active``

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers_seen.append({k.lower(): v for k, v in self.headers.items()})
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                self._counted = True
                try:
                    self._answer(body)
                finally:
                    self._done()

            def _done(self) -> None:
                """The request stops counting as active once its answer starts: the client may send its next
                request as soon as it has read this answer, before this handler returns."""
                if self._counted:
                    self._counted = False
                    with server._lock:
                        server.active -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                step = server._next_step()
                if server.delay:
                    server._stop.wait(server.delay)
                if isinstance(step, tuple):
                    server._stop.wait(step[1])
                    step = "ok"
                if isinstance(step, int):
                    self._send(step, {"error": {"message": f"simulated {step}"}})
                    return
                text = server.reply(body) if callable(server.reply) else server.reply
                payload: dict[str, Any] = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake-model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                }
                if server.usage:
                    payload["usage"] = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
                self._send(200, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self._done()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in server.extra_headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        return Handler


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (just released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def faulty_server(
    seed: int, steps: int, reply: Callable[[dict[str, Any]], str], rate: float = 0.2, sleep: float = 1.0
) -> FakeOpenAIServer:
    """A server whose first ``steps`` requests fail with probability ``rate``: a third each HTTP 500,
    a time-out (it sleeps ``sleep`` seconds) and malformed output; the others get ``reply(body)``."""
    rng = random.Random(seed)
    script: list[Step] = []
    garbage: set[int] = set()
    for i in range(steps):
        roll = rng.random()
        if roll < rate / 3:
            script.append(500)
        elif roll < 2 * rate / 3:
            script.append(("sleep", sleep))
        else:
            script.append("ok")
            if roll < rate:
                garbage.add(i)
    count = iter(range(10**9))
    lock = threading.Lock()

    def answer(body: dict[str, Any]) -> str:
        with lock:
            n = next(count)
        return "Sorry, I cannot {help with that" if n in garbage else reply(body)

    return FakeOpenAIServer(script, reply=answer)
