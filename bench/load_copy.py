"""Copy one user's stored memory under another user id inside a PostgreSQL store (``bench/load_build.py``).

The schema is read from the database, not written down here: every table of the store's schema with a
``user_id`` column holds part of a user's memory (turns, contexts, facts, events, their links, the scope's
version, its change log, history, usage, forgotten hashes), and every key of those tables starts with the scope
(``user_id, agent_id, run_id``), so the same record ids under another user id are unique. A copy inserts the
source's rows of each such table with ``user_id`` changed, in their insertion order (``ORDER BY seq``, so the new
rows' identity values keep the order a load reads them in); identity columns take new values. Each change-log
row gets a fresh random nonce (the log's nonce names one version of one store's scope, see
``anchormem.store.sql.changelog``). The copy is one transaction: a target is either whole or absent, so a target
holding any turn is complete (it may hold more since: the load bench adds to it) and is left as it is.
"""

from __future__ import annotations

from typing import Any

_NONCE = (
    'regexp_replace(entry, \'"nonce": "[0-9a-f]+"\', '
    "'\"nonce\": \"' || substr(md5(random()::text || clock_timestamp()::text), 1, 16) || '\"')"
)


def scope_tables(url: str) -> dict[str, tuple[list[str], bool]]:
    """Each table of the schema with a ``user_id`` column: its columns to copy (identity columns left out, they
    take new values) and whether it has ``seq`` (insertion order)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, a.attname, a.attidentity FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema() "
            "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum"
        ).fetchall()
    columns: dict[str, list[tuple[str, str]]] = {}
    for table, column, identity in rows:
        columns.setdefault(table, []).append((column, identity))
    out: dict[str, tuple[list[str], bool]] = {}
    for table, cols in columns.items():
        names = [c for c, _ in cols]
        if "user_id" in names:
            out[table] = ([c for c, identity in cols if not identity], "seq" in names)
    if "turns" not in out or "facts" not in out:
        raise RuntimeError(f"{url}: no anchormem schema here (tables with a user_id: {sorted(out)})")
    return out


def user_turns(url: str, user: str) -> int:
    """How many turns ``user`` holds (0 before the schema exists)."""
    import psycopg

    with psycopg.connect(url) as conn:
        if conn.execute("SELECT to_regclass('turns')").fetchone() in (None, (None,)):
            return 0
        row = conn.execute("SELECT count(*) FROM turns WHERE user_id = %s", (user,)).fetchone()
    return int(row[0]) if row else 0


def copy_user(conn: Any, tables: dict[str, tuple[list[str], bool]], source: str, target: str, turns: int) -> bool:
    """Make ``target`` a copy of ``source`` (which must hold at least ``turns`` turns); False when ``target`` holds
    a memory already (made by an earlier run). ``conn`` is in autocommit mode: the copy is its own transaction."""
    if conn.execute("SELECT 1 FROM turns WHERE user_id = %s LIMIT 1", (target,)).fetchone():
        return False
    held = conn.execute("SELECT count(*) FROM turns WHERE user_id = %s", (source,)).fetchone()[0]
    if held < turns:
        raise RuntimeError(f"{source} holds {held} turns, not {turns}: build the pool first")
    with conn.transaction():
        if conn.execute("SELECT 1 FROM scopes WHERE user_id = %s LIMIT 1", (target,)).fetchone():
            raise RuntimeError(f"{target} has a scope but no turns: not a user this script made")
        for table, (cols, ordered) in tables.items():
            picked = ["%s" if c == "user_id" else _NONCE if (table, c) == ("changes", "entry") else c for c in cols]
            order = " ORDER BY seq" if ordered else ""
            conn.execute(
                f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(picked)} FROM {table} "
                f"WHERE user_id = %s{order}",
                (target, source),
            )
    return True
