"""What keeps forgetting true when another process writes at the same time.

Inside one write transaction, and serialised per scope against every other write transaction of that
scope (SQLite: ``BEGIN IMMEDIATE`` holds the file's write lock; PostgreSQL: an advisory lock per scope):

- derived rows are written only while what they derive from still exists: a context only if all its
  turns do, a fact only if its context does, an event only if all its member facts do;
- a deletion takes, besides the rows its caller planned, every row derived from them that was written
  after the plan was made (contexts holding a deleted turn, their facts, events on those facts).

So whichever of a delete and an add of the same scope commits first, no row of the deleted words stays.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence

from anchormem.store.sql.dialect import Cursor
from anchormem.store.sql.keys import SCOPE, ScopeKey


def lock_key(key: ScopeKey) -> int:
    """A signed 64-bit number naming a scope (the key of its advisory lock)."""
    digest = hashlib.sha256("\0".join(("anchormem-scope", *key)).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def existing(cur: Cursor, table: str, column: str, key: ScopeKey, ids: Iterable[str]) -> set[str]:
    """Those of ``ids`` that ``table`` holds in ``column`` for the scope, read inside the transaction."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return set()
    d = cur.dialect
    sql = f"SELECT {column} FROM {table} WHERE {SCOPE} AND {column} {d.in_ids}"
    return {r[0] for r in cur.execute(sql, (*key, d.id_list(wanted))).fetchall()}


def derived(
    cur: Cursor, key: ScopeKey, turn_ids: Sequence[str], context_ids: Sequence[str], fact_ids: Sequence[str]
) -> tuple[list[str], list[str], list[str]]:
    """The stored contexts, facts and events of the scope that derive from the given turns, contexts
    and facts (transitively), as they are now inside the transaction."""
    gone_turns = set(turn_ids)
    contexts: list[str] = []
    if gone_turns:
        rows = cur.execute(f"SELECT id, turn_ids FROM contexts WHERE {SCOPE}", key).fetchall()
        contexts = [cid for cid, tids in rows if gone_turns.intersection(json.loads(tids))]
    all_contexts = list(dict.fromkeys([*context_ids, *contexts]))
    facts = sorted(_facts_of(cur, key, all_contexts)) if all_contexts else []
    all_facts = list(dict.fromkeys([*fact_ids, *facts]))
    events: list[str] = []
    if all_facts:
        d = cur.dialect
        # read through event_facts_fact_event (migration 0010), led by the fact; duplicates dropped here
        sql = f"SELECT event_id FROM event_facts WHERE {SCOPE} AND fact_id {d.in_ids}"
        events = sorted({r[0] for r in cur.execute(sql, (*key, d.id_list(all_facts))).fetchall()})
    return contexts, facts, events


def _facts_of(cur: Cursor, key: ScopeKey, context_ids: Sequence[str]) -> set[str]:
    d = cur.dialect
    sql = f"SELECT id FROM facts WHERE {SCOPE} AND context_id {d.in_ids}"
    return {r[0] for r in cur.execute(sql, (*key, d.id_list(list(context_ids)))).fetchall()}
