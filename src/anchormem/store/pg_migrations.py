"""Named, append-only PostgreSQL schema migrations. Never edit a released entry: add a new one.

The schema mirrors the SQLite one (see :mod:`anchormem.store.migrations`) with two differences:
every table has an identity column ``seq`` (insertion order, what SQLite's rowid gives) and an index
on (scope, seq), so loading one scope is an index range scan in reading order; vectors are pgvector
``vector`` columns without a fixed dimension (the dimension comes from the embedder, known only when
the first vectors arrive). The HNSW index is therefore an expression index on ``vector::vector(dim)``,
partial on ``vector_dims(vector) = dim``, created per dimension by :func:`hnsw_index_sql`.
"""

from __future__ import annotations

_SCOPE_COLS = "user_id TEXT NOT NULL, agent_id TEXT NOT NULL DEFAULT '', run_id TEXT NOT NULL DEFAULT ''"
_SCOPE_KEY = "user_id, agent_id, run_id"
_SEQ = "seq BIGINT GENERATED ALWAYS AS IDENTITY"

PG_MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE scopes ({_SCOPE_COLS}, version BIGINT NOT NULL DEFAULT 0, PRIMARY KEY ({_SCOPE_KEY}));
CREATE TABLE turns ({_SEQ}, {_SCOPE_COLS}, id TEXT NOT NULL, session TEXT NOT NULL, position INTEGER NOT NULL,
    speaker TEXT NOT NULL, text TEXT NOT NULL, timestamp TEXT, image_caption TEXT,
    added_at DOUBLE PRECISION NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE INDEX turns_scope_seq ON turns ({_SCOPE_KEY}, seq);
CREATE TABLE contexts ({_SEQ}, {_SCOPE_COLS}, id TEXT NOT NULL, session TEXT NOT NULL, position INTEGER NOT NULL,
    turn_ids TEXT NOT NULL, date TEXT, text TEXT NOT NULL, status TEXT NOT NULL, error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, added_at DOUBLE PRECISION NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE INDEX contexts_scope_seq ON contexts ({_SCOPE_KEY}, seq);
CREATE TABLE facts ({_SEQ}, {_SCOPE_COLS}, id TEXT NOT NULL, context_id TEXT NOT NULL, text TEXT NOT NULL,
    source TEXT NOT NULL, vector vector NOT NULL, added_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE INDEX facts_scope_seq ON facts ({_SCOPE_KEY}, seq);
CREATE INDEX facts_context ON facts ({_SCOPE_KEY}, context_id);
CREATE TABLE events ({_SEQ}, {_SCOPE_COLS}, id TEXT NOT NULL, text TEXT NOT NULL, fact_ids TEXT NOT NULL,
    source TEXT NOT NULL, vector vector NOT NULL, added_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE INDEX events_scope_seq ON events ({_SCOPE_KEY}, seq);
CREATE TABLE event_facts ({_SCOPE_COLS}, event_id TEXT NOT NULL, fact_id TEXT NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, event_id, fact_id));
CREATE INDEX event_facts_fact ON event_facts ({_SCOPE_KEY}, fact_id);
CREATE TABLE usage ({_SCOPE_COLS}, phase TEXT NOT NULL, calls BIGINT NOT NULL, prompt_tokens BIGINT NOT NULL,
    completion_tokens BIGINT NOT NULL, seconds DOUBLE PRECISION NOT NULL, cached_calls BIGINT NOT NULL,
    failed_calls BIGINT NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, phase));
""",
    ),
    (
        "0002_lifecycle",
        f"""
ALTER TABLE facts ADD COLUMN linked BOOLEAN NOT NULL DEFAULT TRUE;
CREATE INDEX facts_unlinked ON facts ({_SCOPE_KEY}, seq) WHERE NOT linked;
CREATE TABLE history (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, timestamp DOUBLE PRECISION NOT NULL,
    {_SCOPE_COLS}, op TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX history_scope ON history ({_SCOPE_KEY}, seq);
""",
    ),
]


def hnsw_index_name(dim: int) -> str:
    return f"facts_hnsw_d{int(dim)}"


def hnsw_index_sql(dim: int, m: int = 16, ef_construction: int = 64) -> str:
    """The HNSW index over the facts of dimension ``dim`` (inner product: our vectors are unit length,
    so ``-(a <#> b)`` is the cosine retrieval uses)."""
    d = int(dim)
    return (
        f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(d)} ON facts USING hnsw ((vector::vector({d})) "
        f"vector_ip_ops) WITH (m = {int(m)}, ef_construction = {int(ef_construction)}) "
        f"WHERE vector_dims(vector) = {d}"
    )


def split_sql(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]
