"""The stored log of what each version of a scope added, by id, so another process can catch up.

A process that holds a scope's snapshot at version v and finds the store at v + k has two ways on: load the
scope again (seconds for a big memory) or apply the k changes. Its own writes are in its journal
(:mod:`anchormem.store.journal`); another process's writes are only in the store. Every version bump writes one
row here, in the write's own transaction: the ids of the contexts, facts and events it added and removed (an add
to a running session replaces the session's last window), or a mark that it forgot messages (a delete or an
update) or did what the log cannot say. :func:`read` hands the ids back only when every version from v + 1 to
v + k is logged and none is so marked; the caller then reads the added rows by id. A forget always means a whole
load: the snapshot's lexical vocabulary would keep the forgotten words.

Ids only, never text: a delete's words are not kept here. The last :data:`KEPT` versions of each scope are
kept, and a change of more than :data:`~anchormem.store.journal.KEPT_ROWS` rows is logged as unknown; deleting a
scope deletes its log.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from anchormem.store.journal import KEPT_ROWS, Change
from anchormem.store.sql.dialect import Cursor
from anchormem.store.sql.keys import SCOPE, SCOPE_COLUMNS, ScopeKey

KEPT = 256  # versions logged per scope
_KINDS = ("contexts", "facts", "events", "removed_contexts", "removed_facts", "removed_events")


@dataclass(frozen=True)
class Added:
    """The ids one version added (in insertion order) and removed."""

    contexts: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    removed_contexts: tuple[str, ...] = ()
    removed_facts: tuple[str, ...] = ()
    removed_events: tuple[str, ...] = ()


def entry(change: Change) -> str:
    """The log's record of one change, with a random nonce that names this version of this store (a backup
    restored and written again reaches the same version numbers with other content and other nonces)."""
    nonce = secrets.token_hex(8)
    removed = len(change.removed_contexts) + len(change.removed_facts) + len(change.removed_events)
    if change.unknown or change.rows + removed > KEPT_ROWS:
        return json.dumps({"nonce": nonce, "unknown": True})
    if change.forgets:
        return json.dumps({"nonce": nonce, "forgets": True})
    return json.dumps(
        {
            "nonce": nonce,
            "contexts": [c.id for c in change.contexts],
            "facts": [f.id for f in change.facts],
            "events": [e.id for e in change.events],
            "removed_contexts": list(change.removed_contexts),
            "removed_facts": list(change.removed_facts),
            "removed_events": list(change.removed_events),
        }
    )


INTO = f"changes ({SCOPE_COLUMNS}, version, entry) VALUES (?, ?, ?, ?, ?)"  # one version's row: (*key, version, entry)


def record(cur: Cursor, key: ScopeKey, version: int, change: Change) -> None:
    """Log ``change`` as the scope's ``version`` (inside the write's transaction), and let old versions go."""
    cur.execute(f"INSERT INTO {INTO}", (*key, version, entry(change)))
    cur.execute(f"DELETE FROM changes WHERE {SCOPE} AND version <= ?", (*key, version - KEPT))


def nonce(query: Callable[[str, Sequence[object]], list[tuple[Any, ...]]], key: ScopeKey, version: int) -> str | None:
    """The nonce logged with the scope's ``version`` (None: not logged, or let go)."""
    rows = query(f"SELECT entry FROM changes WHERE {SCOPE} AND version = ?", (*key, version))
    if not rows:
        return None
    got = json.loads(rows[0][0])
    return str(got["nonce"]) if isinstance(got, dict) and got.get("nonce") else None


def read(
    query: Callable[[str, Sequence[object]], list[tuple[Any, ...]]], key: ScopeKey, version: int, until: int
) -> list[Added] | None:
    """What versions ``version + 1`` to ``until`` added, in order; None unless each of them is logged and only
    added rows."""
    if until <= version:
        return []
    if until - version > KEPT:
        return None
    rows = query(
        f"SELECT version, entry FROM changes WHERE {SCOPE} AND version > ? AND version <= ? ORDER BY version",
        (*key, version, until),
    )
    if [int(v) for v, _ in rows] != list(range(version + 1, until + 1)):
        return None
    out = []
    for _, raw in rows:
        got = json.loads(raw)
        if not isinstance(got, dict) or got.get("unknown") or got.get("forgets"):
            return None
        out.append(Added(*(tuple(str(i) for i in got.get(kind, ())) for kind in _KINDS)))
    return out
