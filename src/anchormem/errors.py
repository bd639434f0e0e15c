"""The one exception tree of anchormem.

Every error the library raises derives from :class:`AnchorMemError`. Errors from
third-party libraries (sqlite3, psycopg, httpx, openai, onnxruntime, ...) are translated
into these at the boundary where they occur, so callers only ever catch ours. The REST
service answers each with a stable code (:mod:`anchormem.wire.error_codes`), and the REST
clients raise the same class back.

Our exception hierarchy:

* AnchorMemError
  + ConfigError
    - MissingExtraError          (an optional extra is not installed)
    - LLMNotConfiguredError      (also an LLMError)
  + InputError
  + NotFoundError
  + StoreError
    - StoreFullError
    - StoreUnavailableError
  + EmbeddingError
    - CacheUnwritableError       (anchormem.embed.onnx_export)
  + LLMError
    - LLMUnavailableError
    - LLMResponseError
      . UnparsableResponseError  (anchormem.llm.structured)
    - LLMNotConfiguredError
  + AccessDeniedError            (REST clients: the service refused the API key)
  + ServiceError                 (REST clients: the service failed without naming why)
"""

from __future__ import annotations

__all__ = [
    "AccessDeniedError",
    "AnchorMemError",
    "ConfigError",
    "EmbeddingError",
    "InputError",
    "LLMError",
    "LLMNotConfiguredError",
    "LLMResponseError",
    "LLMUnavailableError",
    "MissingExtraError",
    "NotFoundError",
    "ServiceError",
    "StoreError",
    "StoreFullError",
    "StoreUnavailableError",
]


class AnchorMemError(Exception):
    """Base class of every error raised by anchormem."""


class ConfigError(AnchorMemError):
    """Settings are missing, contradictory or malformed."""


class MissingExtraError(ConfigError):
    """A feature was used whose optional packages are not installed (see :mod:`anchormem._util.extras`)."""

    def __init__(self, extra: str, what: str, package: str | None) -> None:
        self.extra = extra
        self.package = package
        missing = f" ({package} is not installed)" if package else ""
        super().__init__(f"{what} needs the '{extra}' extra{missing}: pip install 'anchormem[{extra}]'")


class InputError(AnchorMemError):
    """User input (a file, a message, an argument) is malformed."""


class NotFoundError(AnchorMemError):
    """A requested record, user or sample does not exist."""


class StoreError(AnchorMemError):
    """The store failed (I/O, corruption, locking, migration)."""


class StoreFullError(StoreError):
    """The store's disk (or its size limit) is full: the write was rolled back, nothing of it is stored."""


class StoreUnavailableError(StoreError):
    """The store cannot be reached now (a database server down or refusing connections)."""


class EmbeddingError(AnchorMemError):
    """The embedder could not be loaded or failed to embed."""


class LLMError(AnchorMemError):
    """An LLM call failed."""


class LLMUnavailableError(LLMError):
    """The LLM endpoint is unreachable, timed out or kept failing after retries."""


class LLMResponseError(LLMError):
    """The LLM answered, but its output could not be parsed or repaired."""


class LLMNotConfiguredError(LLMError, ConfigError):
    """An operation needs an LLM, and none is configured."""


class AccessDeniedError(AnchorMemError):
    """The REST service refused the API key: missing, unknown, or not allowed this user's memory."""


class ServiceError(AnchorMemError):
    """The REST service could not be reached, or failed in a way it did not name."""
