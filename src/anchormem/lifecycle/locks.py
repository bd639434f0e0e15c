"""Per-user writer locks: this process's adds and deletes of one user's memory run one at a time."""

from __future__ import annotations

import threading

from anchormem.model import Scope


class WriterLocks:
    """One re-entrant lock per user id, and per agent for agents' own memories (no user).

    A delete must never land while an add is between reading the turns and writing what it derived
    from them (that would write back facts, events and cached LLM responses of deleted words), so
    both hold the user's lock. A user's lock covers its agent and run scopes, since a delete of the
    user reaches them; agents' own memories never overlap one another, so each agent has its own.
    Adds of different users (or different agents' own memories) run in parallel.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._writers: dict[str, threading.RLock] = {}

    def of(self, scope: Scope) -> threading.RLock:
        """The lock that guards writes to ``scope`` (use it as ``with locks.of(scope):``)."""
        key = scope.user_id if scope.user_id else f"\0agent:{scope.agent_id}"
        with self._lock:
            return self._writers.setdefault(key, threading.RLock())
