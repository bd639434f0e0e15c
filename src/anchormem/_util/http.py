"""The HTTP side of every OpenAI-compatible client (chat completions, embeddings): one URL
builder, one set of retryable failures, one retry loop with backoff.

Retried: connection errors, time-outs, and HTTP 408, 429 and 5xx (honouring ``Retry-After``).
Other 4xx answers are the request's fault and fail at once. Each client says which of its own
errors (:mod:`anchormem.errors`) a failure becomes, and how it names the endpoint.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import httpx

from anchormem._util.closeable import Closeable
from anchormem.errors import AnchorMemError, ConfigError

RETRYABLE_STATUS = frozenset({408, 429})
"""HTTP statuses below 500 that are retried (every 5xx is too)."""


def is_retryable_status(status: int) -> bool:
    return status >= 500 or status in RETRYABLE_STATUS


def endpoint_url(base_url: str, endpoint: str, *, label: str) -> str:
    """``http://host:8000``, ``http://host:8000/`` and ``http://host:8000/v1`` all give
    ``http://host:8000/v1/{endpoint}``; a URL already ending in ``/{endpoint}`` is kept."""
    url = base_url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{label} base URL must start with http:// or https://, got {base_url!r}")
    if url.endswith("/" + endpoint):
        return url
    if not url.endswith("/v1"):
        url += "/v1"
    return f"{url}/{endpoint}"


@dataclass(frozen=True)
class EndpointErrors:
    """Which library error each kind of failure becomes."""

    unavailable: type[AnchorMemError]  # still failing after every retry
    rejected: type[AnchorMemError]  # a 4xx that retrying cannot fix
    bad_response: type[AnchorMemError]  # an answer that is not a JSON object


class Retryable(Exception):
    """One failed attempt that may succeed when tried again."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` more attempts after the first; the n-th retry waits ``backoff * 2**(n-1)``
    seconds, capped at ``backoff_max``, plus up to 50 % jitter (at least what ``Retry-After`` asks,
    up to four times the cap)."""

    retries: int = 3
    backoff: float = 0.5
    backoff_max: float = 8.0
    sleep: Callable[[float], None] = time.sleep

    @property
    def attempts(self) -> int:
        return max(0, self.retries) + 1

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        delay = min(self.backoff_max, self.backoff * 2.0 ** (attempt - 1))
        delay *= 1.0 + random.random() * 0.5
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.backoff_max * 4))
        return delay


class JsonEndpoint(Closeable):
    """POSTs JSON to one URL and returns the decoded JSON object, retrying transient failures
    under ``policy``. Thread-safe (one pooled httpx client)."""

    def __init__(
        self,
        url: str,
        *,
        label: str,
        errors: EndpointErrors,
        policy: RetryPolicy,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_connections: int | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url
        self.label = label
        self.errors = errors
        self.policy = policy
        self.timeout = timeout
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        limits = httpx.Limits(max_connections=max_connections) if max_connections else httpx.Limits()
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            limits=limits,
            transport=transport,
        )

    def post(
        self, body: dict[str, Any], *, attempt_guard: Callable[[], AbstractContextManager[Any]] | None = None
    ) -> dict[str, Any]:
        """The endpoint's JSON answer to ``body``. ``attempt_guard``: a context manager factory
        held around each attempt (not around the waits between them), e.g. a concurrency slot."""
        attempt = 0
        while True:
            attempt += 1
            try:
                if attempt_guard is None:
                    return self._attempt(body)
                with attempt_guard():
                    return self._attempt(body)
            except Retryable as exc:
                if attempt >= self.policy.attempts:
                    tries = f"{attempt} attempts" if attempt > 1 else "1 attempt"
                    raise self.errors.unavailable(f"{self.label} {self.url} failed ({tries}): {exc.what}") from None
                self.policy.sleep(self.policy.delay(attempt, exc.retry_after))

    def _attempt(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._client.post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise Retryable(f"timed out after {self.timeout:g}s ({type(exc).__name__})") from None
        except httpx.ConnectError as exc:
            raise Retryable(f"unreachable: cannot connect ({_reason(exc)})") from None
        except httpx.TransportError as exc:
            raise Retryable(f"unreachable: connection failed ({type(exc).__name__}: {_reason(exc)})") from None
        status = response.status_code
        if is_retryable_status(status):
            raise Retryable(f"HTTP {status} {snippet(response.text)}".rstrip(), _retry_after(response))
        if status >= 400:
            raise self.errors.rejected(
                f"{self.label} {self.url} rejected the request: HTTP {status} {snippet(response.text)}".rstrip()
            )
        try:
            data = response.json()
        except ValueError:
            raise self.errors.bad_response(
                f"{self.label} {self.url} answered with non-JSON: {snippet(response.text)}"
            ) from None
        if not isinstance(data, dict):
            raise self.errors.bad_response(
                f"{self.label} {self.url} answered with unexpected JSON: {snippet(response.text)}"
            )
        return data

    def close(self) -> None:
        self._client.close()


class EndpointClient(Closeable):
    """A client that talks to one :class:`JsonEndpoint` (``self._endpoint``): its URL, and
    closing the client closes the endpoint's connections."""

    _endpoint: JsonEndpoint

    @property
    def url(self) -> str:
        return self._endpoint.url

    def close(self) -> None:
        self._endpoint.close()


def snippet(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[:limit] + "…"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    if "Connection refused" in text or "[Errno 111]" in text:
        return "connection refused"
    return " ".join(text.split())[:160]


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
