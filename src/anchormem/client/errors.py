"""REST error answers turned back into the library's exceptions (:mod:`anchormem.errors`).

The service answers ``{"error": {"code": ..., "message": ...}}`` with a stable code; each code maps to
the exception the library itself would have raised, so code written against ``Memory`` catches the
same errors from a ``Client``. A code this client does not know maps by HTTP status. Every raised
error carries ``status`` (the HTTP status of the answer that reported it: a background job's
failure comes with the job's status answer) and ``code`` (the service's code) as attributes.
"""

from __future__ import annotations

import json

from anchormem.errors import AccessDeniedError, AnchorMemError, InputError, NotFoundError, ServiceError
from anchormem.wire.error_codes import client_errors


def _by_status(status: int) -> type[AnchorMemError]:
    if status in (401, 403):
        return AccessDeniedError
    if status == 404:
        return NotFoundError
    if 400 <= status < 500:
        return InputError
    return ServiceError


def error_from_code(code: str, message: str, status: int) -> AnchorMemError:
    """The library error for the service's error ``code`` (by ``status`` if the code is unknown)."""
    kind = client_errors().get(code) or _by_status(status)
    error = kind(message or f"the service answered HTTP {status}")
    error.status = status  # type: ignore[attr-defined]
    error.code = code  # type: ignore[attr-defined]
    return error


def error_from_response(status: int, body: bytes) -> AnchorMemError:
    """The library error for an error answer (``status`` >= 400) with this body."""
    code, message = f"http_{status}", ""
    try:
        detail = json.loads(body)["error"]
        code, message = str(detail["code"]), str(detail.get("message", ""))
    except (ValueError, KeyError, TypeError):
        message = body[:200].decode("utf-8", "replace").strip()
    return error_from_code(code, message, status)


def unreachable(base_url: str, exc: Exception) -> ServiceError:
    """The error for a request that got no answer (connection refused, time-out, ...)."""
    reason = str(exc) or type(exc).__name__
    return ServiceError(f"cannot reach the anchormem service at {base_url}: {reason}")
