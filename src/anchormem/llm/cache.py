"""A persistent response cache around any LLM: one SQLite file, keyed by
sha256 of (model, messages, params). Re-runs become free, and a cache file doubles
as a recording of responses for tests.

The file's schema is this module's, and so is forgetting from it: :meth:`CachedLLM.forget` drops every
exchange holding a deleted text and scrubs the file, :func:`forget_in_file` does the same for a file no LLM
is configured for now, and :func:`count_holding` counts what a forget would drop (a delete's preview)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from anchormem._util.shared_sqlite import SQLiteFile
from anchormem.errors import LLMError, StoreError
from anchormem.llm.keys import cache_key, canonical_json, request_payload
from anchormem.llm.protocol import LLM, Completion, CompletionParams, Message

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    response_model TEXT NOT NULL,
    created REAL NOT NULL
)
"""


_HOLDING = "instr(request, ?) > 0 OR instr(request, ?) > 0 OR instr(response, ?) > 0"


def _holding_args(text: str) -> tuple[str, str, str]:
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]  # as it appears inside the stored JSON
    return text, escaped, text


def _unique(texts: Iterable[str]) -> list[str]:
    return [t for t in dict.fromkeys(texts) if t.strip()]


@runtime_checkable
class ResponseCache(Protocol):
    """An LLM response cache a delete forgets from (:class:`CachedLLM`)."""

    def forget(self, texts: Iterable[str]) -> int:
        """Drop every cached exchange holding one of ``texts``; how many were dropped."""
        ...


class CachedLLM(SQLiteFile):
    """An :class:`~anchormem.llm.protocol.LLM` that answers repeated requests from
    ``path``. Thread-safe. A hit returns the stored completion with ``cached=True``
    (its token counts are those of the original call); failures are never cached."""

    def __init__(self, inner: LLM, path: Path) -> None:
        self._inner = inner
        setup = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA busy_timeout=5000", _SCHEMA)
        super().__init__(path, "LLM response cache", setup)

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def inner(self) -> LLM:
        return self._inner

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion:
        model = self._inner.model
        key = cache_key(model, messages, params)
        started = time.monotonic()
        hit = self._get(key)
        if hit is not None:
            return replace(hit, cached=True, seconds=time.monotonic() - started)
        completion = self._inner.complete(messages, params)
        request = canonical_json(request_payload(model, messages, params))
        self._put(key, model, request, completion)
        return completion

    def __len__(self) -> int:
        return int(self._sql.query("SELECT COUNT(*) FROM responses")[0][0])

    def forget_containing(self, text: str) -> int:
        """Delete every cached exchange whose request or response contains ``text``;
        returns how many were deleted."""
        if not text:
            return 0
        return self._sql.run(f"DELETE FROM responses WHERE {_HOLDING}", _holding_args(text))

    def forget(self, texts: Iterable[str]) -> int:
        """Drop every cached exchange holding one of ``texts`` (blank ones hold nothing), then rewrite the file
        without the freed pages and truncate its WAL, so the words leave the disk; how many were dropped."""
        n = sum(self.forget_containing(text) for text in _unique(texts))
        if n and self._path.exists():
            scrub_file(self._path)
        return n

    def clear(self) -> int:
        """Delete every cached exchange; returns how many were deleted."""
        return self._sql.run("DELETE FROM responses")

    def _get(self, key: str) -> Completion | None:
        rows = self._sql.query(
            "SELECT response, prompt_tokens, completion_tokens, response_model FROM responses WHERE key = ?",
            (key,),
        )
        if not rows:
            return None
        row = rows[0]
        return Completion(text=row[0], prompt_tokens=row[1], completion_tokens=row[2], model=row[3])

    def _put(self, key: str, model: str, request: str, completion: Completion) -> None:
        self._sql.run(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                model,
                request,
                completion.text,
                completion.prompt_tokens,
                completion.completion_tokens,
                completion.model,
                time.time(),
            ),
        )


class _NoLLM:
    """Stands in for the endpoint when a cache file is opened only to forget from it."""

    model = "none"

    def complete(self, messages: Any, params: Any = None) -> Any:
        raise LLMError("no LLM is configured")


def forget_in_file(path: Path, texts: Iterable[str]) -> int:
    """:meth:`CachedLLM.forget` on the cache file at ``path`` (left by an earlier configuration: no LLM is
    configured now); 0 when there is no such file."""
    if not path.exists():
        return 0
    holder = CachedLLM(_NoLLM(), path)
    try:
        return holder.forget(texts)
    finally:
        holder.close()


def count_holding(path: Path, texts: Iterable[str]) -> int:
    """How many cached exchanges of the file at ``path`` hold one of ``texts`` (what a forget would drop); the
    file is opened read-only and nothing is changed, and a missing file holds nothing. An unreadable file
    raises :class:`StoreError`."""
    unique = _unique(texts)
    if not unique or not path.exists():
        return 0
    keys: set[str] = set()
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            for text in unique:
                rows = db.execute(f"SELECT key FROM responses WHERE {_HOLDING}", _holding_args(text))
                keys.update(str(r[0]) for r in rows)
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read the LLM response cache {path}: {exc}") from exc
    return len(keys)


def scrub_file(path: Path) -> None:
    """Rewrite an SQLite file of responses (this cache's, or a batch store's) without its free pages and
    truncate its WAL."""
    try:
        db = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout = 30000")
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise StoreError(f"cannot scrub the LLM response cache {path}: {exc}") from exc
