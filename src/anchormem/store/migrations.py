"""Named, append-only schema migrations. Never edit a released entry: add a new one."""

from __future__ import annotations

_SCOPE_COLS = "user_id TEXT NOT NULL, agent_id TEXT NOT NULL DEFAULT '', run_id TEXT NOT NULL DEFAULT ''"
_SCOPE_KEY = "user_id, agent_id, run_id"

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
]
