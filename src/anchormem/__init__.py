"""anchormem — long-term memory for LLM agents (AnchorMem).

Raw conversation is stored once and never rewritten; small extracted facts are the
search keys; a search returns the original words around them, plus event summaries
that tie sessions together, with provenance for every memory.

``__all__`` is the public API (a test pins it): the facades, their settings, the scope and
search result types, and the exception tree (drawn in :mod:`anchormem.errors`). The REST
clients are :mod:`anchormem.client`; every other module is an implementation detail.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from anchormem import errors
from anchormem.errors import *  # noqa: F403 (the exception tree is light: no import of its own)

__version__ = "0.1.0"

__all__ = ["AsyncClient", "AsyncMemory", "Client", "Memory", "Scope", "SearchResult", "Settings", "__version__"]
__all__ += errors.__all__

if TYPE_CHECKING:
    from anchormem.aio import AsyncMemory
    from anchormem.client import AsyncClient, Client
    from anchormem.config import Settings
    from anchormem.memory import Memory
    from anchormem.model import Scope, SearchResult

_LAZY = {
    "Memory": "memory",
    "AsyncMemory": "aio",
    "Client": "client",
    "AsyncClient": "client",
    "Settings": "config",
    "Scope": "model",
    "SearchResult": "model",
}


def __getattr__(name: str) -> Any:  # lazy: importing anchormem loads nothing heavy
    if name in _LAZY:
        return getattr(importlib.import_module(f"anchormem.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'anchormem' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
