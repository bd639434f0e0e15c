"""What both clients share: the service's address and key, the request headers, and turning an HTTP
answer into a :class:`~anchormem.client.calls.Reply` or a library error."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from anchormem import __version__
from anchormem.client.calls import Call, Reply
from anchormem.client.errors import error_from_response
from anchormem.errors import ConfigError, ServiceError

DEFAULT_URL = "http://127.0.0.1:8420"
DEFAULT_TIMEOUT = 60.0
ENV_URL = "ANCHORMEM_URL"
ENV_KEY = "ANCHORMEM_API_KEY"


def base_url(url: str | None) -> str:
    """``url``, else ``$ANCHORMEM_URL``, else the address ``anchormem serve`` listens on by default."""
    chosen = (url or os.environ.get(ENV_URL) or DEFAULT_URL).strip().rstrip("/")
    if not chosen.startswith(("http://", "https://")):
        raise ConfigError(f"the service URL must start with http:// or https://, got {chosen!r}")
    return chosen


def headers(api_key: str | None) -> dict[str, str]:
    """The headers of every request: the key (``api_key``, else ``$ANCHORMEM_API_KEY``), if any."""
    key = api_key if api_key is not None else os.environ.get(ENV_KEY)
    out = {"User-Agent": f"anchormem-client/{__version__}", "Accept": "application/json"}
    if key:
        out["Authorization"] = f"Bearer {key}"
    return out


def request_args(call: Call) -> dict[str, Any]:
    args: dict[str, Any] = {"params": call.params or None, "headers": call.headers or None}
    if call.json is not None:
        args["json"] = call.json
    return args


def reply(response: httpx.Response, call: Call) -> Reply:
    """The parsed answer, or the library error a failed answer stands for."""
    if response.status_code >= 400:
        raise error_from_response(response.status_code, response.content)
    try:
        if call.lines:
            data: Any = [json.loads(line) for line in response.text.splitlines() if line.strip()]
        else:
            data = response.json()
    except ValueError as exc:
        raise ServiceError(f"{call.method} {call.path}: the service answered something that is not JSON") from exc
    return Reply(response.status_code, data)
