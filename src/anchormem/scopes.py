"""Validating the scope of a call (user, agent, run) and a query string."""

from __future__ import annotations

from anchormem.errors import InputError, NotFoundError
from anchormem.model import Scope

MAX_QUERY_CHARS = 10_000


def make_scope(user_id: str, agent_id: str | None = None, run_id: str | None = None) -> Scope:
    for name, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id)):
        if value is None and name != "user_id":
            continue
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{name} must be a non-empty string")
        if len(value) > 256 or "\x00" in value:
            raise InputError(f"{name} is too long or contains a NUL byte")
    return Scope(user_id, agent_id, run_id)


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    return query.strip()


def no_memory(user_id: str, agent_id: str | None = None, run_id: str | None = None) -> NotFoundError:
    """The error for a scope with nothing stored."""
    return NotFoundError(
        f"no memory for user {user_id!r}"
        + (f" (agent {agent_id!r})" if agent_id else "")
        + (f" (run {run_id!r})" if run_id else "")
    )
