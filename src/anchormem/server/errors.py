"""Errors as JSON with stable codes: ``{"error": {"code": "not_found", "message": "..."}}``.

Every library error (:mod:`anchormem.errors`) maps to one HTTP status and one code; the
codes are part of the API and never change meaning. Unexpected exceptions become a
500 ``internal_error`` without their text (it may hold paths or data); so do ``store_error``
and ``internal_error`` library errors, whose text (the store's path or URL, driver messages)
goes to the server log only.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from anchormem.errors import AnchorMemError
from anchormem.wire.error_codes import http_codes, library_errors

log = logging.getLogger("anchormem.server")


class ApiError(StarletteHTTPException):
    """An HTTP error raised by the service itself, with its stable code."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(status_code=status, detail=message, headers=headers)
        self.code = code


def classify(exc: AnchorMemError) -> tuple[int, str]:
    """The HTTP status and stable code of a library error."""
    for kind, status, code in library_errors():
        if isinstance(exc, kind):
            return status, code
    return 500, "internal_error"


_PRIVATE = {
    "store_error": "the store failed (see the server log)",
    "internal_error": "internal error (see the server log)",
}


def public_message(exc: AnchorMemError, code: str) -> str:
    """The error text a client may see: a fixed sentence for store and internal failures, else the
    error's own text on one line."""
    return _PRIVATE.get(code) or " ".join(str(exc).split())


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


def _json(status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse(error_body(code, message, **extra), status_code=status, headers=headers)


async def _library_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AnchorMemError)
    status, code = classify(exc)
    if status >= 500:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc)
    return _json(status, code, public_message(exc, code))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = getattr(exc, "code", None) or http_codes().get(exc.status_code, f"http_{exc.status_code}")
    message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    return _json(exc.status_code, code, message, headers=getattr(exc, "headers", None))


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    details = [{"loc": [str(p) for p in e.get("loc", ())], "message": str(e.get("msg", ""))} for e in exc.errors()]
    message = "invalid request"
    if details:
        loc, msg = ".".join(details[0]["loc"]), str(details[0]["message"])
        message = f"{loc}: {msg}" if loc else msg
    return _json(422, "validation_error", message, details=details)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("%s %s raised an unexpected error", request.method, request.url.path)
    return _json(500, "internal_error", "internal error (see the server log)")


def install(app: FastAPI) -> None:
    app.add_exception_handler(AnchorMemError, _library_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)
