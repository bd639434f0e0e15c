"""Clients for the REST API of ``anchormem serve``: :class:`Client` (blocking) and :class:`AsyncClient`
(asyncio), with the method names, result types and errors of :class:`anchormem.Memory`."""

from __future__ import annotations

from anchormem.client.aio import AsyncClient
from anchormem.client.sync import Client

__all__ = ["AsyncClient", "Client"]
