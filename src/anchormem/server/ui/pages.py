"""The inspector's page and its static files, served from the package (no build step, no CDN).

The page holds no data: everything it shows comes from the REST API with the key the person types
in, so the API's per-user checks apply to every view. The responses forbid inline scripts, framing
and any origin but this server's.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from anchormem.server.errors import ApiError

router = APIRouter(prefix="/ui", include_in_schema=False)

STATIC = {
    "app.css": "text/css",
    "app.js": "text/javascript",  # elements, API calls, sign-in, routing; the views register themselves
    "timeline.js": "text/javascript",
    "search.js": "text/javascript",
    "graph.js": "text/javascript",
    "manage.js": "text/javascript",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def _read(name: str) -> bytes:
    return resources.files("anchormem.server.ui").joinpath("static", name).read_bytes()


@router.get("")
async def root() -> RedirectResponse:
    return RedirectResponse("/ui/", status_code=307)


@router.get("/")
async def index() -> Response:
    return Response(_read("index.html"), media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)


@router.get("/static/{name}")
async def static(name: str) -> Response:
    media = STATIC.get(name)
    if media is None:
        raise ApiError(404, "not_found", f"no file {name!r}")
    return Response(_read(name), media_type=f"{media}; charset=utf-8", headers=SECURITY_HEADERS)
