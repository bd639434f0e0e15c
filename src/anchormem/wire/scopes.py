"""The scope of a call (user, agent, run), made in one place from the call's keyword arguments and
checked; and a query string.

:func:`scope_of` is what every facade method that names a memory does with its ``**scope``: refuse a
keyword the method does not take (:func:`~anchormem.wire.args.scope_ids`), check each id
(:func:`make_scope`) and return the :class:`~anchormem.model.Scope`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anchormem.errors import InputError, NotFoundError
from anchormem.model import Scope
from anchormem.wire.args import SCOPE_KEYS, scope_ids
from anchormem.wire.validation import bad_character, check_scope_id

MAX_QUERY_CHARS = 10_000
NO_USER = ""  # the user id of an agent's own memory (a scope with an agent and no user)
NO_USER_IN_PATH = "-"  # the REST path's user of an agent's own memory: /v1/users/-/...?agent_id=...


def scope_of(args: Mapping[str, Any], method: str, allowed: frozenset[str] = SCOPE_KEYS) -> Scope:
    """The checked scope named by a call's keyword arguments ``args`` (see :func:`make_scope`); a keyword
    outside ``allowed`` is a :class:`TypeError`, as for a function that does not name it."""
    return make_scope(*scope_ids(args, method, allowed))


def make_scope(user_id: str | None, agent_id: str | None = None, run_id: str | None = None) -> Scope:
    """A scope whose ids are short printable labels: not only whitespace, no control characters
    (CR, LF, NUL, ...), no lone surrogates, at most 256 characters.

    A scope names a user, an agent, or both: an agent's memory without a user is kept under the user
    id ``""`` (``NO_USER``), so ``user_id=None`` (or ``""``) with an ``agent_id`` is the agent's own
    memory, shared by no user's."""
    if user_id is None or user_id == NO_USER:
        if agent_id is None:
            raise InputError("user_id or agent_id is required")
        user_id = NO_USER
    else:
        check_scope_id(user_id, "user_id")
    for name, value in (("agent_id", agent_id), ("run_id", run_id)):
        if value is not None:
            check_scope_id(value, name)
    return Scope(user_id, agent_id, run_id)


def covers(outer: Scope, inner: Scope) -> bool:
    """Whether ``inner`` is ``outer`` or one of its sub-scopes: the same user, and the same agent and
    run wherever ``outer`` names one (a user's scope covers its agents' and runs' scopes)."""
    return (
        inner.user_id == outer.user_id
        and (outer.agent_id is None or inner.agent_id == outer.agent_id)
        and (outer.run_id is None or inner.run_id == outer.run_id)
    )


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
    return NotFoundError(f"no memory for {describe(Scope(user_id, agent_id, run_id))}")


def describe(scope: Scope) -> str:
    """``user 'ana' (agent 'coach') (run 'r1')``, or ``agent 'coach'`` for an agent's own memory."""
    if scope.user_id == NO_USER and scope.agent_id:
        return f"agent {scope.agent_id!r}" + (f" (run {scope.run_id!r})" if scope.run_id else "")
    return (
        f"user {scope.user_id!r}"
        + (f" (agent {scope.agent_id!r})" if scope.agent_id else "")
        + (f" (run {scope.run_id!r})" if scope.run_id else "")
    )
