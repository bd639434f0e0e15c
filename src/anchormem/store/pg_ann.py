"""Nearest facts of one scope in PostgreSQL by pgvector's HNSW index: one partial index per big scope.

An index covers the facts of one scope and one vector dimension (``WHERE user_id = … AND agent_id = …
AND run_id = … AND vector_dims(vector) = d``) on the inner product (``vector_ip_ops``: what
retrieval's ``matrix @ q`` computes; the cosine for unit vectors). Only that scope's inserts maintain
it; other users' adds never touch it. Its name is a hash of the scope and dimension; a comment on the
index holds them in JSON, so :func:`indexed` lists the scopes that have one.

A partial index serves only a query whose ``WHERE`` implies its predicate. The statements here are sent
unprepared (``prepare=False``), so PostgreSQL plans each one with the scope's values: never a generic
plan, which could not use the index.

:func:`nearest` is exact without an index (the scope's rows through the (scope, seq) B-tree, sorted by
distance) and approximate with one (``hnsw.ef_search`` candidates; ``strict_order`` iterative scans
when more rows than that are asked for). Deleted facts are never returned (the index scan checks each
row); their entries leave the index at the next ``VACUUM`` (``anchormem maintenance scrub`` rewrites
the table and rebuilds its indexes).

Every function takes a psycopg connection in autocommit mode; :class:`~anchormem.store.postgres.PostgresStore`
wraps them with its pool and error translation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from anchormem.store.sql.keys import ScopeKey

MIN_FACTS = 200_000
"""A scope with at least this many facts gets an HNSW index (``anchormem maintenance ann-index``); see
docs/configuration.md "Stores" for the measurements behind it."""
EF_CONSTRUCTION = 128
"""Candidates kept while building (pgvector's default is 64): on clustered vectors at 500,000 facts, recall@10
0.82 → 0.99 at ef_search 100, for a build 1.7× as long (``bench/pg_hnsw.py``)."""
EF_SEARCH = 200
"""``hnsw.ef_search`` of :func:`nearest` (candidates the graph search keeps; pgvector's default is 40). A query
asking for more facts than this searches with that many."""
MAX_EF_SEARCH = 1000  # pgvector's upper bound of hnsw.ef_search
PREFIX = "facts_ann_"


def index_name(key: ScopeKey, dim: int) -> str:
    """The scope's index: a hash, since a scope's ids may be long and hold any character (names are ≤ 63 bytes)."""
    digest = hashlib.sha256(json.dumps([*key, int(dim)]).encode()).hexdigest()[:24]
    return f"{PREFIX}{digest}"


def _predicate(dim: int) -> str:
    return f"user_id = %s AND agent_id = %s AND run_id = %s AND vector_dims(vector) = {int(dim)}"


def _expr(dim: int) -> str:
    return f"(vector::vector({int(dim)}))"


def _state(conn: Any, name: str) -> bool | None:
    """None: no such index; else whether it is valid (a ``CREATE INDEX CONCURRENTLY`` cut short leaves an
    invalid one behind, which queries never use)."""
    row = conn.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)", (name,)).fetchone()
    return None if row is None else bool(row[0])


def exists(conn: Any, key: ScopeKey, dim: int) -> bool:
    """Whether the scope has a usable index."""
    return _state(conn, index_name(key, dim)) is True


def size(conn: Any, key: ScopeKey, dim: int) -> int:
    """The index's bytes on disk (0: none)."""
    row = conn.execute("SELECT pg_relation_size(to_regclass(%s))", (index_name(key, dim),)).fetchone()
    return int(row[0] or 0)


def create(
    conn: Any,
    key: ScopeKey,
    dim: int,
    *,
    m: int = 16,
    ef_construction: int = EF_CONSTRUCTION,
    maintenance_work_mem: str | None = None,
    workers: int | None = None,
    concurrently: bool = True,
) -> bool:
    """Build the scope's index unless it has one; True when this call built it. ``concurrently``: writes go
    on meanwhile (``CREATE INDEX CONCURRENTLY``; else the build blocks every write to ``facts``).
    ``maintenance_work_mem`` (e.g. ``"4GB"``): the build is much faster when the graph fits in it;
    ``workers``: ``max_parallel_maintenance_workers`` of the build."""
    from psycopg import sql

    name = index_name(key, dim)
    state = _state(conn, name)
    if state:
        return False
    if state is False:  # an interrupted concurrent build: start again
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
    where = sql.SQL(_predicate(dim).replace("%s", "{}")).format(*(sql.Literal(v) for v in key))
    statement = sql.SQL(
        "CREATE INDEX {how} IF NOT EXISTS {name} ON facts USING hnsw ({expr} vector_ip_ops) "
        "WITH (m = {m}, ef_construction = {efc}) WHERE {where}"
    ).format(
        how=sql.SQL("CONCURRENTLY" if concurrently else ""),
        name=sql.Identifier(name),
        expr=sql.SQL(_expr(dim)),
        m=sql.Literal(int(m)),
        efc=sql.Literal(int(ef_construction)),
        where=where,
    )
    settings = {"maintenance_work_mem": maintenance_work_mem, "max_parallel_maintenance_workers": workers}
    try:
        for setting, value in settings.items():
            if value is not None:
                conn.execute("SELECT set_config(%s, %s, false)", (setting, str(value)))
        conn.execute(statement)
        comment = json.dumps({"scope": list(key), "dim": int(dim)})
        conn.execute(sql.SQL("COMMENT ON INDEX {} IS {}").format(sql.Identifier(name), sql.Literal(comment)))
    finally:
        for setting, value in settings.items():
            if value is not None:
                conn.execute(sql.SQL("RESET {}").format(sql.Identifier(setting)))
    return True


def drop(conn: Any, key: ScopeKey, dim: int, wait: float | None = None) -> bool:
    """Drop the scope's index without blocking other scopes' reads and writes (``DROP INDEX CONCURRENTLY``
    waits for the transactions that use ``facts``); True when there was one. ``wait``: give up after that many
    seconds of waiting (False; the index stays)."""
    from psycopg import errors, sql

    name = index_name(key, dim)
    if _state(conn, name) is None:
        return False
    if wait is not None:
        conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{max(1, int(wait * 1000))}ms",))
    try:
        conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
    except errors.LockNotAvailable:
        return False
    finally:
        if wait is not None:
            conn.execute("RESET lock_timeout")
    return True


def indexed(conn: Any) -> dict[ScopeKey, int]:
    """The scopes that have a usable index, with its dimension."""
    rows = conn.execute(
        "SELECT obj_description(i.indexrelid, 'pg_class') FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = to_regclass('facts') AND c.relname LIKE %s AND i.indisvalid",
        (PREFIX + "%",),
    ).fetchall()
    out: dict[ScopeKey, int] = {}
    for (comment,) in rows:
        if comment:  # a build whose comment is not written yet
            info = json.loads(comment)
            user, agent, run = info["scope"]
            out[(user, agent, run)] = int(info["dim"])
    return out


def fact_counts(conn: Any, at_least: int, up_to: int) -> dict[ScopeKey, int]:
    """The scopes holding at least ``at_least`` facts, with their counts up to ``up_to`` (each count stops
    there: the scope's (scope, seq) index is read no further)."""
    rows = conn.execute(
        "SELECT s.user_id, s.agent_id, s.run_id, n.count FROM scopes s CROSS JOIN LATERAL ("
        "SELECT count(*) FROM (SELECT 1 FROM facts f WHERE f.user_id = s.user_id AND f.agent_id = s.agent_id "
        "AND f.run_id = s.run_id LIMIT %s) x) n WHERE n.count >= %s",
        (max(int(up_to), int(at_least)), int(at_least)),
    ).fetchall()
    return {(u, a, r): int(n) for u, a, r, n in rows}


def _query(dim: int) -> str:
    e = _expr(dim)
    d = int(dim)
    return (
        f"SELECT id, -({e} <#> %b::vector({d})) FROM facts WHERE {_predicate(dim)} "
        f"ORDER BY {e} <#> %b::vector({d}) LIMIT %s"
    )


def _vector(vector: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    return np.ascontiguousarray(vector, dtype=np.float32).ravel()


def nearest(
    conn: Any, key: ScopeKey, vector: npt.NDArray[np.floating], k: int, ef_search: int = EF_SEARCH
) -> list[tuple[str, float]]:
    """The ``k`` facts of the scope with the highest inner product with ``vector``: (id, score), best first."""
    q = _vector(vector)
    if k <= 0:
        return []
    ef = min(MAX_EF_SEARCH, max(int(ef_search), int(k)))
    with conn.transaction():
        conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
        if k > ef:
            conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        rows = conn.execute(_query(q.shape[0]), (q, *key, q, int(k)), prepare=False).fetchall()
    return [(str(fid), float(score)) for fid, score in rows]


def scores(conn: Any, key: ScopeKey, vector: npt.NDArray[np.floating], ids: Sequence[str]) -> dict[str, float]:
    """The inner product of ``vector`` with each of the scope's facts ``ids`` (the stored ones), exactly."""
    q = _vector(vector)
    if not ids:
        return {}
    rows = conn.execute(
        "SELECT id, -(vector <#> %b) FROM facts WHERE user_id = %s AND agent_id = %s AND run_id = %s AND id = ANY(%s)",
        (q, *key, list(ids)),
    ).fetchall()
    return {str(fid): float(score) for fid, score in rows}


def vectors(conn: Any, key: ScopeKey, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
    """The stored vectors of the scope's facts ``ids`` (ids of no stored fact are left out)."""
    if not ids:
        return {}
    with conn.cursor(binary=True) as cur:
        rows = cur.execute(
            "SELECT id, vector FROM facts WHERE user_id = %s AND agent_id = %s AND run_id = %s AND id = ANY(%s)",
            (*key, list(ids)),
        ).fetchall()
    return {str(fid): _array(v) for fid, v in rows}


def mean(conn: Any, key: ScopeKey, ids: Sequence[str]) -> tuple[npt.NDArray[np.float32], int]:
    """The mean of the stored vectors of the scope's facts ``ids`` (pgvector's ``avg``: summed in double
    precision, rounded to float32 once) and how many there were; (empty, 0) for none."""
    if not ids:
        return np.zeros(0, np.float32), 0
    with conn.cursor(binary=True) as cur:
        row = cur.execute(
            "SELECT avg(vector), count(*) FROM facts "
            "WHERE user_id = %s AND agent_id = %s AND run_id = %s AND id = ANY(%s)",
            (*key, list(ids)),
        ).fetchone()
    if row is None or not row[1]:
        return np.zeros(0, np.float32), 0
    return _array(row[0]), int(row[1])


def _array(value: Any) -> npt.NDArray[np.float32]:
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def explain(conn: Any, key: ScopeKey, vector: npt.NDArray[np.floating], k: int) -> str:
    """PostgreSQL's plan of :func:`nearest` for this scope (``EXPLAIN``, not run)."""
    q = _vector(vector)
    rows = conn.execute("EXPLAIN " + _query(q.shape[0]), (q, *key, q, int(k)), prepare=False).fetchall()
    return "\n".join(r[0] for r in rows)
