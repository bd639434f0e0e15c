"""Load what the first request would otherwise wait for: servers call :func:`warm_up` before they
accept requests (the REST app in its startup hook, the MCP server before it runs)."""

from __future__ import annotations

import time

from anchormem.memory import Memory


def warm_up(memory: Memory) -> float:
    """Open the store and load the embedding model (by embedding one short text); the seconds taken."""
    started = time.perf_counter()
    memory.store  # noqa: B018  (opens the store)
    memory.embedder.embed(["warm-up"])
    return time.perf_counter() - started
