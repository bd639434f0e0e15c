"""What the SQL store keeps beside a scope's records: meta values, LLM usage by phase, the append-only
history, idempotency records of write requests and the keyed hashes of deleted turns.
:class:`~anchormem.store.sql.core.SQLStore` builds on it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchormem.model import HistoryEntry, Scope, Usage
from anchormem.store.protocol import SavedRequest
from anchormem.store.sql import codec
from anchormem.store.sql import forgotten as tombstones
from anchormem.store.sql import lifecycle as life
from anchormem.store.sql import requests as saved
from anchormem.store.sql.base import SQLBase
from anchormem.store.sql.keys import SCOPE as _SCOPE
from anchormem.store.sql.keys import sk as _sk


class SQLBookkeeping(SQLBase):
    """Meta, usage, history, idempotent requests and forgotten hashes over one SQL connection."""

    # -- meta ----------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as cur:
            cur.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value)
            )

    # -- accounting ------------------------------------------------------------------------------------

    def record_usage(self, scope: Scope, usage: dict[str, Usage]) -> None:
        with self._tx() as cur:
            cur.executemany(
                codec.USAGE_UPSERT,
                [(*_sk(scope), phase, *(getattr(u, c) for c in codec.USAGE_FIELDS)) for phase, u in usage.items()],
            )

    def usage(self, scope: Scope) -> dict[str, Usage]:
        rows = self._q(f"SELECT phase, {', '.join(codec.USAGE)} FROM usage WHERE {_SCOPE} ORDER BY phase", _sk(scope))
        return {r[0]: codec.usage(r[1:]) for r in rows}

    # -- history (see lifecycle) ---------------------------------------------------------------------

    def append_history(
        self, scope: Scope, op: str, detail: Mapping[str, Any], timestamp: float | None = None
    ) -> HistoryEntry:
        with self._tx() as cur:
            return life.append_history(cur, scope, op, detail, timestamp)

    def history(self, scope: Scope, limit: int | None = None) -> list[HistoryEntry]:
        return life.history_entries(self._q(*life.history_query(scope, limit)))

    # -- idempotent requests (see requests) -------------------------------------------------------------

    def claim_request(
        self, owner: str, key: str, fingerprint: str, *, now: float, keep: float, lease: float, cap: int
    ) -> SavedRequest | None:
        with self._tx() as cur:
            return saved.claim(cur, owner, key, fingerprint, now - keep, now - lease, now, cap)

    def finish_request(self, owner: str, key: str, response: str) -> None:
        with self._tx() as cur:
            saved.finish(cur, owner, key, response)

    def release_request(self, owner: str, key: str) -> None:
        with self._tx() as cur:
            saved.release(cur, owner, key)

    # keyed hashes of deleted turns (anchormem.lifecycle.forgotten): no words, no ids
    def meta_once(self, key: str, value: str) -> str:
        with self._tx() as cur:
            return tombstones.insert_once(cur, key, value)

    def forget(self, scope: Scope, hashes: Sequence[str]) -> None:
        if hashes:
            with self._tx() as cur:
                tombstones.add(cur, _sk(scope), hashes)

    def unforget(self, scope: Scope, hashes: Sequence[str]) -> None:
        if hashes:
            with self._tx() as cur:
                tombstones.drop(cur, _sk(scope), hashes)

    def forgotten(self, scope: Scope, hashes: Sequence[str]) -> set[str]:
        if not hashes:
            return set()
        d = self.dialect
        return {str(r[0]) for r in self._q(*tombstones.query(_sk(scope), hashes, d.in_ids, d.id_list(list(hashes))))}
