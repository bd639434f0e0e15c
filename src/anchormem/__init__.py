"""anchormem — long-term memory for LLM agents (AnchorMem).

Raw conversation is stored once and never rewritten; small extracted facts are the
search keys; a search returns the original words around them, plus event summaries
that tie sessions together, with provenance for every memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "AnchorMemError",
    "AsyncClient",
    "AsyncMemory",
    "Client",
    "Memory",
    "Scope",
    "SearchResult",
    "Settings",
    "__version__",
]

if TYPE_CHECKING:
    from anchormem.aio import AsyncMemory
    from anchormem.client import AsyncClient, Client
    from anchormem.config import Settings
    from anchormem.errors import AnchorMemError
    from anchormem.memory import Memory
    from anchormem.model import Scope, SearchResult


def __getattr__(name: str) -> Any:  # lazy: importing anchormem loads nothing heavy
    if name == "Memory":
        from anchormem.memory import Memory

        return Memory
    if name == "AsyncMemory":
        from anchormem.aio import AsyncMemory

        return AsyncMemory
    if name in ("Client", "AsyncClient"):
        from anchormem import client

        return getattr(client, name)
    if name == "Settings":
        from anchormem.config import Settings

        return Settings
    if name == "AnchorMemError":
        from anchormem.errors import AnchorMemError

        return AnchorMemError
    if name in ("Scope", "SearchResult"):
        from anchormem import model

        return getattr(model, name)
    raise AttributeError(f"module 'anchormem' has no attribute {name!r}")
