"""How every table of the SQL store names a scope: three key columns, an absent agent or run stored as ``""``.

Statements select one scope with ``WHERE {SCOPE}`` and pass :func:`sk` of it as the first parameters.
"""

from __future__ import annotations

from anchormem.model import Scope

ScopeKey = tuple[str, str, str]
"""``(user_id, agent_id, run_id)`` as stored."""
SCOPE_COLUMNS = "user_id, agent_id, run_id"
SCOPE = "user_id = ? AND agent_id = ? AND run_id = ?"


def sk(scope: Scope) -> ScopeKey:
    """The scope's key columns (absent agent/run stored as empty strings)."""
    return (scope.user_id, scope.agent_id or "", scope.run_id or "")
