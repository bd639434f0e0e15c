"""The stable error codes of the REST API, written once for the service (which answers with them) and
for the clients (which raise them back as the library's errors): ``{"error": {"code": ..., ...}}``.

The codes are part of the API and never change meaning. They are data, ``anchormem/data/error_codes.json``
(read on first use, so a client in another language can read the same table): ``library`` gives each
library error's HTTP status and code, most specific first (LLMNotConfiguredError is both an LLMError and a
ConfigError); ``http`` the code of an HTTP-level failure; ``client`` the error a client raises for a code no
library error is answered with. The names ``LIBRARY_ERRORS``, ``HTTP_CODES`` and ``CLIENT_ERRORS`` give the
tables as Python values.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from anchormem import errors
from anchormem.errors import AnchorMemError

__all__ = ["client_errors", "http_codes", "library_errors"]


@cache
def _table() -> dict[str, Any]:
    text = resources.files("anchormem.data").joinpath("error_codes.json").read_text("utf-8")
    table: dict[str, Any] = json.loads(text)
    return table


def _error(name: str) -> type[AnchorMemError]:
    kind = vars(errors).get(name)
    if not (isinstance(kind, type) and issubclass(kind, AnchorMemError)):
        raise AssertionError(f"error_codes.json names {name!r}, which is not an error of anchormem.errors")
    return kind


@cache
def library_errors() -> tuple[tuple[type[AnchorMemError], int, str], ...]:
    """Each library error's HTTP status and code, as the service answers it (most specific first)."""
    return tuple((_error(name), int(status), str(code)) for name, status, code in _table()["library"])


@cache
def http_codes() -> dict[int, str]:
    """The code of an HTTP-level failure (a request the service refused before any library call)."""
    return {int(status): str(code) for status, code in _table()["http"].items()}


@cache
def client_errors() -> dict[str, type[AnchorMemError]]:
    """The error a client raises for each code: the library error the code was answered for, and for an
    HTTP-level failure the error the same mistake raises in the library."""
    answered = {code: kind for kind, _, code in library_errors()}
    return answered | {code: _error(name) for code, name in _table()["client"].items()}


_TABLES = {"LIBRARY_ERRORS": library_errors, "HTTP_CODES": http_codes, "CLIENT_ERRORS": client_errors}


def __getattr__(name: str) -> Any:
    if name in _TABLES:
        return _TABLES[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
