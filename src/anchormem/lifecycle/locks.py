"""Per-user writer locks: this process's adds and deletes of one user's memory run one at a time."""

from __future__ import annotations

import threading


class WriterLocks:
    """One re-entrant lock per user id.

    A delete must never land while an add is between reading the turns and writing what it derived
    from them (that would write back facts, events and cached LLM responses of deleted words), so
    both hold the user's lock. Adds of different users run in parallel.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._writers: dict[str, threading.RLock] = {}

    def of(self, user_id: str) -> threading.RLock:
        """The lock of ``user_id`` (use it as ``with locks.of(user):``)."""
        with self._lock:
            return self._writers.setdefault(user_id, threading.RLock())
