"""Validating the scope of a call (user, agent, run) and a query string."""

from __future__ import annotations

from anchormem.errors import InputError, NotFoundError
from anchormem.model import Scope
from anchormem.validation import bad_character, check_scope_id

MAX_QUERY_CHARS = 10_000


def make_scope(user_id: str, agent_id: str | None = None, run_id: str | None = None) -> Scope:
    """A scope whose ids are short printable labels: not only whitespace, no control characters
    (CR, LF, NUL, ...), no lone surrogates, at most 256 characters."""
    for name, value in (("user_id", user_id), ("agent_id", agent_id), ("run_id", run_id)):
        if value is None and name != "user_id":
            continue
        check_scope_id(value, name)
    return Scope(user_id, agent_id, run_id)


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InputError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}")
    bad = bad_character(query)
    if bad:
        raise InputError(f"the query contains {bad}")
    return query.strip()


def no_memory(user_id: str, agent_id: str | None = None, run_id: str | None = None) -> NotFoundError:
    """The error for a scope with nothing stored."""
    return NotFoundError(
        f"no memory for user {user_id!r}"
        + (f" (agent {agent_id!r})" if agent_id else "")
        + (f" (run {run_id!r})" if run_id else "")
    )
