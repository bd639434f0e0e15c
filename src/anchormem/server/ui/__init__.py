"""The memory inspector served by ``anchormem serve`` at ``/ui``: a small static page (vanilla
JavaScript, shipped in the package) over the REST API, plus the read-only ``inspect`` endpoints it
needs (timeline, record ties, event graph, search explanation, delete dry run, size).

``router`` holds all of it; :func:`anchormem.server.app.create_app` includes it."""

from __future__ import annotations

from fastapi import APIRouter

from anchormem.server.ui import pages, routes

router = APIRouter()
router.include_router(routes.key_router)
router.include_router(routes.router)
router.include_router(pages.router)

__all__ = ["router"]
