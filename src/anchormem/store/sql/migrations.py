"""Named, append-only schema migrations of both SQL stores. Never edit a released entry: add a new one.

The PostgreSQL schema mirrors the SQLite one with two differences: every table has an identity column
``seq`` (insertion order, what SQLite's rowid gives) and an index on (scope, seq), so loading one scope
is an index range scan in reading order; vectors are pgvector ``vector`` columns without a fixed
dimension (the dimension comes from the embedder, known only when the first vectors arrive).

``0003_drop_hnsw`` removes the per-dimension HNSW indexes (``facts_hnsw_d<dim>``) that earlier versions
built on the first ingest: search loads one scope's vectors and ranks them exactly, so no query used
them, and they slowed every insert.
"""

from __future__ import annotations

_SCOPE_COLS = "user_id TEXT NOT NULL, agent_id TEXT NOT NULL DEFAULT '', run_id TEXT NOT NULL DEFAULT ''"
_SCOPE_KEY = "user_id, agent_id, run_id"
_SEQ = "seq BIGINT GENERATED ALWAYS AS IDENTITY"
# a message's time as it was given, and the free JSON metadata the caller attached (both dialects)
_MESSAGE_FIELDS = """
ALTER TABLE turns ADD COLUMN time_given TEXT;
ALTER TABLE turns ADD COLUMN metadata TEXT;
"""

# usage split by where tokens came from (spent, or the response cache) and wall time beside summed call time
_USAGE_DETAIL = """
ALTER TABLE usage ADD COLUMN cached_prompt_tokens {int} NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN cached_completion_tokens {int} NOT NULL DEFAULT 0;
ALTER TABLE usage ADD COLUMN wall_seconds {real} NOT NULL DEFAULT 0;
"""

# how many extracted facts a context's text did not support (anchormem.ingest.grounding)
_UNGROUNDED = "ALTER TABLE contexts ADD COLUMN ungrounded INTEGER NOT NULL DEFAULT 0;"

# what an idempotent write request was and the response it got (the REST service's Idempotency-Key)
_REQUESTS = """
CREATE TABLE requests (owner TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, response TEXT,
    created {real} NOT NULL, PRIMARY KEY (owner, key));
CREATE INDEX requests_created ON requests (created);
"""

# where each piece of a context lies in its message's text: JSON [[start, end], ...] aligned with turn_ids,
# NULL when the context holds whole messages (every context written before passages existed)
_CONTEXT_OFFSETS = """
ALTER TABLE contexts ADD COLUMN offsets TEXT;
"""

# the narrowed reads of an add (anchormem.store.sql.reads): one session's turns and windows, the contexts still
# to extract, and (SQLite) the scope's last turn, each an index range instead of a scan of the scope's rows
_NARROW_INDEXES = """
CREATE INDEX turns_session ON turns ({key}, session{seq});
CREATE INDEX contexts_session ON contexts ({key}, session{seq});
CREATE INDEX contexts_status ON contexts ({key}, status{seq});
"""

# the events of given facts: a covering index led by the fact, so a delete's lookup of the events on its facts
# reads those facts' links (with (scope, fact_id) alone SQLite chose the primary key's scope prefix instead:
# every link of the scope, 86 ms an add at 50,000 turns)
_EVENTS_BY_FACT = f"""
CREATE INDEX event_facts_fact_event ON event_facts ({_SCOPE_KEY}, fact_id, event_id);
DROP INDEX event_facts_fact;
"""

# what each version of a scope added, by id, for other processes' snapshots (anchormem.store.sql.changelog)
_CHANGES = f"""
CREATE TABLE changes ({_SCOPE_COLS}, version BIGINT NOT NULL, entry TEXT NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, version));
"""

# keyed hashes of deleted turns, so a re-sent history stores nothing of them (anchormem.lifecycle.forgotten)
_FORGOTTEN = f"""
CREATE TABLE forgotten ({_SCOPE_COLS}, hash TEXT NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, hash));
"""
# which fact of an event supersedes which (JSON [[newer, older, kind], ...]; NULL: none), from LLM integration
_SUPERSEDES = "ALTER TABLE events ADD COLUMN supersedes TEXT;"

SQLITE_MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE scopes ({_SCOPE_COLS}, version INTEGER NOT NULL DEFAULT 0, PRIMARY KEY ({_SCOPE_KEY}));
CREATE TABLE turns ({_SCOPE_COLS}, id TEXT NOT NULL, session TEXT NOT NULL, position INTEGER NOT NULL,
    speaker TEXT NOT NULL, text TEXT NOT NULL, timestamp TEXT, image_caption TEXT, added_at REAL NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE TABLE contexts ({_SCOPE_COLS}, id TEXT NOT NULL, session TEXT NOT NULL, position INTEGER NOT NULL,
    turn_ids TEXT NOT NULL, date TEXT, text TEXT NOT NULL, status TEXT NOT NULL, error TEXT,
    attempts INTEGER NOT NULL DEFAULT 0, added_at REAL NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE TABLE facts ({_SCOPE_COLS}, id TEXT NOT NULL, context_id TEXT NOT NULL, text TEXT NOT NULL,
    source TEXT NOT NULL, vector BLOB NOT NULL, added_at REAL NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE INDEX facts_context ON facts ({_SCOPE_KEY}, context_id);
CREATE TABLE events ({_SCOPE_COLS}, id TEXT NOT NULL, text TEXT NOT NULL, fact_ids TEXT NOT NULL,
    source TEXT NOT NULL, vector BLOB NOT NULL, added_at REAL NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, id));
CREATE TABLE event_facts ({_SCOPE_COLS}, event_id TEXT NOT NULL, fact_id TEXT NOT NULL,
    PRIMARY KEY ({_SCOPE_KEY}, event_id, fact_id));
CREATE INDEX event_facts_fact ON event_facts ({_SCOPE_KEY}, fact_id);
CREATE TABLE usage ({_SCOPE_COLS}, phase TEXT NOT NULL, calls INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL, seconds REAL NOT NULL, cached_calls INTEGER NOT NULL,
    failed_calls INTEGER NOT NULL, PRIMARY KEY ({_SCOPE_KEY}, phase));
""",
    ),
    (
        "0002_lifecycle",
        f"""
ALTER TABLE facts ADD COLUMN linked INTEGER NOT NULL DEFAULT 1;
CREATE INDEX facts_linked ON facts ({_SCOPE_KEY}, linked);
CREATE TABLE history (seq INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, {_SCOPE_COLS},
    op TEXT NOT NULL, detail TEXT NOT NULL);
CREATE INDEX history_scope ON history ({_SCOPE_KEY}, seq);
""",
    ),
    ("0004_message_fields", _MESSAGE_FIELDS),
    ("0005_requests", _REQUESTS.format(real="REAL")),
    ("0006_context_offsets", _CONTEXT_OFFSETS),
    ("0007_usage_detail", _USAGE_DETAIL.format(int="INTEGER", real="REAL")),
    ("0008_ungrounded", _UNGROUNDED),
    # a SQLite index ends in the rowid: (scope) orders a scope's turns by insertion, as turns_scope_seq does
    (
        "0009_narrow_reads",
        _NARROW_INDEXES.format(key=_SCOPE_KEY, seq="") + f"CREATE INDEX turns_scope ON turns ({_SCOPE_KEY});",
    ),
    ("0010_event_facts_by_fact", _EVENTS_BY_FACT),
    ("0011_changes", _CHANGES),
    ("0012_forgotten", _FORGOTTEN),
    ("0013_supersedes", _SUPERSEDES),
]

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
    (
        "0003_drop_hnsw",
        """
DO $$
DECLARE r RECORD;
BEGIN
    FOR r IN SELECT schemaname, indexname FROM pg_indexes
        WHERE tablename = 'facts' AND schemaname = current_schema() AND indexname ~ '^facts_hnsw_d[0-9]+$'
    LOOP
        EXECUTE format('DROP INDEX %I.%I', r.schemaname, r.indexname);
    END LOOP;
END
$$;
""",
    ),
    ("0004_message_fields", _MESSAGE_FIELDS),
    ("0005_requests", _REQUESTS.format(real="DOUBLE PRECISION")),
    ("0006_context_offsets", _CONTEXT_OFFSETS),
    ("0007_usage_detail", _USAGE_DETAIL.format(int="BIGINT", real="DOUBLE PRECISION")),
    ("0008_ungrounded", _UNGROUNDED),
    ("0009_narrow_reads", _NARROW_INDEXES.format(key=_SCOPE_KEY, seq=", seq")),
    ("0010_event_facts_by_fact", _EVENTS_BY_FACT),
    ("0011_changes", _CHANGES),
    ("0012_forgotten", _FORGOTTEN),
    ("0013_supersedes", _SUPERSEDES),
]


def split_sql(sql: str) -> list[str]:
    """The statements of a migration: split at ``;`` except inside ``$$``-quoted bodies."""
    statements: list[str] = []
    current = ""
    for i, part in enumerate(sql.split("$$")):
        if i % 2:  # a dollar-quoted body: kept whole
            current += f"$${part}$$"
            continue
        pieces = part.split(";")
        current += pieces[0]
        for piece in pieces[1:]:
            statements.append(current)
            current = piece
    statements.append(current)
    return [s.strip() for s in statements if s.strip()]
