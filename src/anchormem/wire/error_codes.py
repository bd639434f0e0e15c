"""The stable error codes of the REST API, written once for the service (which answers with them) and
for the clients (which raise them back as the library's errors): ``{"error": {"code": ..., ...}}``.

The codes are part of the API and never change meaning.
"""

from __future__ import annotations

from anchormem.errors import (
    AccessDeniedError,
    AnchorMemError,
    ConfigError,
    EmbeddingError,
    InputError,
    LLMError,
    LLMNotConfiguredError,
    LLMResponseError,
    LLMUnavailableError,
    NotFoundError,
    ServiceError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
)

# Most specific first: LLMNotConfiguredError is both an LLMError and a ConfigError.
LIBRARY_ERRORS: tuple[tuple[type[AnchorMemError], int, str], ...] = (
    (LLMNotConfiguredError, 409, "llm_not_configured"),
    (LLMUnavailableError, 503, "llm_unavailable"),
    (LLMResponseError, 502, "llm_bad_response"),
    (LLMError, 502, "llm_error"),
    (EmbeddingError, 503, "embedding_unavailable"),
    (InputError, 400, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (ConfigError, 500, "config_error"),
    (StoreFullError, 507, "store_full"),
    (StoreUnavailableError, 503, "store_unavailable"),
    (StoreError, 500, "store_error"),
    (AnchorMemError, 500, "internal_error"),
)
"""Each library error's HTTP status and code, as the service answers it."""

HTTP_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    500: "internal_error",
}
"""The code of an HTTP-level failure (a request the service refused before any library call)."""

CLIENT_ERRORS: dict[str, type[AnchorMemError]] = {
    **{code: kind for kind, _, code in LIBRARY_ERRORS},
    "internal_error": ServiceError,
    "validation_error": InputError,
    "bad_request": InputError,
    "payload_too_large": InputError,
    "unsupported_media_type": InputError,
    "unauthorized": AccessDeniedError,
    "forbidden": AccessDeniedError,
}
"""The error a client raises for each code: the library error the code was answered for, and for an
HTTP-level failure the error the same mistake raises in the library."""
