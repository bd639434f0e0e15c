"""anchormem as a service: the REST API (``anchormem serve``, see :func:`create_app`) and the MCP
server (``anchormem mcp``, see :mod:`anchormem.server.mcp`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["KeyRing", "create_app"]

if TYPE_CHECKING:
    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyRing


def __getattr__(name: str) -> Any:  # lazy: importing anchormem.server loads no web framework
    if name == "create_app":
        from anchormem._util.extras import requires_extra

        with requires_extra("server", "anchormem.server"):
            from anchormem.server.app import create_app

        return create_app
    if name == "KeyRing":
        from anchormem.server.keys import KeyRing

        return KeyRing
    raise AttributeError(f"module 'anchormem.server' has no attribute {name!r}")
