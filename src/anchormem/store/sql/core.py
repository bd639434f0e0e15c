"""The SQL store, written once for SQLite and PostgreSQL.

:class:`SQLStore` implements the :class:`~anchormem.store.protocol.Store` protocol
over two small parts that a backend module supplies (see :mod:`anchormem.store.sql.dialect`): a
``Dialect`` (the SQL tokens and the vector codec that differ) and a ``Connection`` (the driver:
transactions, reads, maintenance). Statements are written with ``?`` placeholders; the dialect maps them
to the driver's style. The plumbing (the lock, transactions, error translation, migrations, maintenance)
is :class:`~anchormem.store.sql.base.SQLBase`'s; meta, usage, history, idempotent requests and forgotten
hashes are :class:`~anchormem.store.sql.bookkeeping.SQLBookkeeping`'s.

Every error of the driver is translated at that boundary into :class:`~anchormem.errors.StoreError` (or
its subclasses for a full disk and an unreachable database) with the driver's exception chained: callers
only ever see the anchormem exception tree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from anchormem.errors import StoreError
from anchormem.model import Context, Event, Fact, Scope, Turn
from anchormem.store.journal import Change
from anchormem.store.protocol import Counts, Extraction, ExtractionState, Matrix
from anchormem.store.sql import catchup, changelog, codec, integrity, reads
from anchormem.store.sql import lifecycle as life
from anchormem.store.sql.bookkeeping import SQLBookkeeping
from anchormem.store.sql.dialect import Cursor, decoder
from anchormem.store.sql.keys import SCOPE as _SCOPE
from anchormem.store.sql.keys import SCOPE_COLUMNS as _SCOPE_COLS
from anchormem.store.sql.keys import sk as _sk

T = TypeVar("T")
Ids = Sequence[str]


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]


class SQLStore(SQLBookkeeping):
    """A :class:`~anchormem.store.protocol.Store` over one SQL connection (thread-safe: calls are
    serialised). Migrations run on open."""

    def _bump(self, cur: Cursor, scope: Scope, change: Change | None = None) -> None:
        """Move the scope's version on, noting what the write changed for retrieval (the journal and the log).
        The first version of a scope is noted as unknown: a scope deleted whole and made again may start right
        after the version a process still holds of the old one, and must not be grown from it."""
        existed = cur.execute(f"SELECT 1 FROM scopes WHERE {_SCOPE}", _sk(scope)).fetchone() is not None
        row = cur.execute(
            f"INSERT INTO scopes ({_SCOPE_COLS}, version) VALUES (?, ?, ?, 1 + COALESCE("
            "(SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'version_floor'), 0)) "
            f"ON CONFLICT ({_SCOPE_COLS}) DO UPDATE SET version = scopes.version + 1 RETURNING version",
            _sk(scope),
        ).fetchone()
        change = (change or Change()) if existed else Change(unknown=True)
        changelog.record(cur, _sk(scope), int(row[0]), change)
        self._changed(scope, int(row[0]), change)

    @decoder
    def _matrix(self, values: list[Any]) -> Matrix:
        if not values:
            return np.zeros((0, self._dim()), dtype=np.float32)
        return self.dialect.decode(values)

    @decoder
    def _dim(self) -> int:
        value = self.get_meta("embedder_dim")
        return int(value) if value else 0

    def _rows(self, columns: str, table: str, scope: Scope, **narrow: Any) -> list[tuple[Any, ...]]:
        """``columns`` of the scope's rows of ``table`` in insertion order, narrowed as :func:`reads.where` does
        (an empty list of ids or statuses matches nothing)."""
        if any(v is not None and not isinstance(v, str) and not v for v in narrow.values()):
            return []
        cond, params = reads.where(self.dialect, _sk(scope), **narrow)
        return self._in_order(columns, f"FROM {table} WHERE {cond}", params)

    def _in_order(
        self, columns: str, where: str, params: Sequence[object], *, binary: bool = False
    ) -> list[tuple[Any, ...]]:
        """``SELECT columns {where}`` (``where``: ``FROM table WHERE ...``, no ``ORDER BY``) in insertion order.
        The order is the dialect's insertion column, sorted here rather than by the database: SQLite finds a
        scope's rows through an index and would sort them, vectors and texts included, in a temporary B-tree
        (at 180k facts that sort was more than half of reading the fact matrix)."""
        rows = self._q(f"SELECT {self.dialect.order}, {columns} {where}", params, binary=binary)
        rows.sort(key=_first)
        return [r[1:] for r in rows]

    # -- scopes ------------------------------------------------------------------------------------

    def version(self, scope: Scope) -> int:
        rows = self._q(f"SELECT version FROM scopes WHERE {_SCOPE}", _sk(scope))
        return int(rows[0][0]) if rows else 0

    def changes_since(self, scope: Scope, version: int, until: int) -> list[Change] | None:
        """What versions ``version + 1`` to ``until`` of ``scope`` added and removed, from the store's log (see
        :func:`anchormem.store.sql.catchup.changes_since`); None unless all are logged and none forgot messages."""
        return catchup.changes_since(self, scope, version, until)

    def version_nonce(self, scope: Scope, version: int, create: bool = False) -> str | None:
        """The random nonce the store's log holds for ``version`` of ``scope`` (see
        :func:`anchormem.store.sql.catchup.version_nonce`)."""
        return catchup.version_nonce(self, scope, version, create)

    def rows_by_id(self, columns: str, table: str, scope: Scope, ids: set[str]) -> dict[str, tuple[Any, ...]]:
        """``columns`` (the first one the id) of the scope's rows of ``table`` with these ids, by id."""
        if not ids:
            return {}
        cond, params = reads.where(self.dialect, _sk(scope), ids=sorted(ids))
        return {r[0]: r for r in self._in_order(columns, f"FROM {table} WHERE {cond}", params, binary=True)}

    def scopes(self) -> list[Scope]:
        rows = self._q(f"SELECT {_SCOPE_COLS} FROM scopes ORDER BY 1, 2, 3")
        return [Scope(u, a or None, r or None) for u, a, r in rows]

    def scope_versions(self, under: Scope) -> dict[Scope, int]:
        where, params = ["user_id = ?"], [under.user_id]
        for column, value in (("agent_id", under.agent_id), ("run_id", under.run_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = f"SELECT {_SCOPE_COLS}, version FROM scopes WHERE {' AND '.join(where)} AND version > 0 ORDER BY 1, 2, 3"
        return {Scope(u, a or None, r or None): int(v) for u, a, r, v in self._q(sql, params)}

    # -- turns and contexts ------------------------------------------------------------------------------

    def _add_new(
        self,
        scope: Scope,
        items: Sequence[T],
        into: str,
        row: Callable[[T, float], tuple[object, ...]],
        keep: Callable[[Cursor, Sequence[T]], Sequence[T]] | None = None,
        change: Callable[[list[T]], Change] | None = None,
    ) -> list[T]:
        """Insert each item that is not stored yet (and that ``keep``, asked inside the transaction, keeps);
        returns those, and bumps the version if any."""
        added: list[T] = []
        now = time.time()
        with self._tx(scope=scope) as cur:
            for item in keep(cur, items) if keep else items:
                if cur.execute(self.dialect.insert(into), (*_sk(scope), *row(item, now))).rowcount:
                    added.append(item)
            self._grew(cur, into.split(maxsplit=1)[0], len(added))
            if added:
                self._bump(cur, scope, change(added) if change else None)
        return added

    def add_turns(self, scope: Scope, turns: Sequence[Turn]) -> list[Turn]:
        return self._add_new(scope, turns, codec.TURN_INSERT, codec.turn_row)

    def turns(self, scope: Scope, session: str | None = None, ids: Ids | None = None) -> list[Turn]:
        return [codec.turn(r) for r in self._rows(codec.TURN_COLUMNS, "turns", scope, session=session, ids=ids)]

    def last_turn(self, scope: Scope) -> Turn | None:
        sql = f"SELECT {codec.TURN_COLUMNS} FROM turns WHERE {_SCOPE} ORDER BY {self.dialect.order} DESC LIMIT 1"
        found = self._q(sql, _sk(scope))
        return codec.turn(found[0]) if found else None

    def add_contexts(self, scope: Scope, contexts: Sequence[Context]) -> list[Context]:
        """Store the new contexts whose turns are all stored (a context of deleted words is not written)."""

        def whole(cur: Cursor, items: Sequence[Context]) -> list[Context]:
            held = integrity.existing(cur, "turns", "id", _sk(scope), (t for c in items for t in c.turn_ids))
            return [c for c in items if held.issuperset(c.turn_ids)]

        def change(added: list[Context]) -> Change:
            return Change(contexts=tuple(added))

        return self._add_new(scope, contexts, codec.CONTEXT_INSERT, codec.context_row, whole, change)

    def contexts(self, scope: Scope, ids: Ids | None = None, session: str | None = None) -> list[Context]:
        found = self._rows(codec.CONTEXT_COLUMNS, "contexts", scope, ids=ids, session=session)
        return codec.contexts(found)

    def extraction_states(
        self, scope: Scope, ids: Ids | None = None, status: Sequence[str] | None = None
    ) -> list[ExtractionState]:
        found = self._rows("id, status, error, attempts, ungrounded", "contexts", scope, ids=ids, status=status)
        return [ExtractionState(*r) for r in found]

    def counts(self, scope: Scope) -> Counts:
        return reads.counts(self._q(reads.COUNTS, reads.counts_params(_sk(scope)))[0])

    # -- facts ---------------------------------------------------------------------------------------------

    def save_extractions(self, scope: Scope, extractions: Sequence[Extraction]) -> int:
        """Store each context's facts (unlinked) and mark the context done, all in one transaction. Facts
        of a context that is no longer stored (deleted meanwhile, by any process) are not written."""
        sk, now, encode = _sk(scope), time.time(), self.dialect.encode
        for ex in extractions:
            if len(ex.facts) != len(ex.vectors):
                raise StoreError(f"{len(ex.facts)} facts but {len(ex.vectors)} vectors for {ex.context_id}")
        with self._tx(scope=scope) as cur:
            held = integrity.existing(cur, "contexts", "id", sk, (ex.context_id for ex in extractions))
            # a context's facts replace the provisional anchors it held while its batch answer was awaited
            final = [ex.context_id for ex in extractions if ex.context_id in held and ex.status == "done"]
            replaced = life.provisional_facts(cur, sk, final) if final else []
            rows = [
                (*sk, fact.id, fact.context_id, fact.text, fact.source, encode(vec), now, ex.status == "batch")
                for ex in extractions
                if ex.context_id in held
                for fact, vec in zip(ex.facts, ex.vectors, strict=True)
                if fact.context_id in held
            ]
            added = cur.executemany(
                self.dialect.insert(
                    f"facts ({_SCOPE_COLS}, id, context_id, text, source, vector, added_at, linked) "
                    f"VALUES (?,?,?,?,?,?,?,{self.dialect.vector_placeholder},?,?)"
                ),
                rows,
            )
            self._grew(cur, "facts", added)
            cur.executemany(
                "UPDATE contexts SET status = ?, error = NULL, attempts = attempts + 1, ungrounded = ? "
                f"WHERE {_SCOPE} AND id = ?",
                [(ex.status, ex.ungrounded, *sk, ex.context_id) for ex in extractions if ex.context_id in held],
            )
            if held:
                kept = [
                    (fact, vec)
                    for ex in extractions
                    if ex.context_id in held
                    for fact, vec in zip(ex.facts, ex.vectors, strict=True)
                    if fact.context_id in held
                ]
                exact = added == len(kept)  # else some were stored already: which, this write cannot say
                rows_of = [v for _, v in kept]
                vectors = np.asarray(rows_of, dtype=np.float32) if kept else np.zeros((0, 0), np.float32)
                facts = tuple(f for f, _ in kept)
                change = Change(facts=facts, fact_vectors=vectors, removed_facts=tuple(replaced), unknown=not exact)
                self._bump(cur, scope, change)
        return added

    def mark_failed(self, scope: Scope, context_id: str, error: str) -> None:
        with self._tx(scope=scope) as cur:
            cur.execute(
                f"UPDATE contexts SET status = 'failed', error = ?, attempts = attempts + 1 WHERE {_SCOPE} AND id = ?",
                (error[:2000], *_sk(scope), context_id),
            )

    def facts(self, scope: Scope, ids: Ids | None = None) -> list[Fact]:
        return [Fact(*r) for r in self._rows("id, context_id, text, source", "facts", scope, ids=ids)]

    def fact_matrix(self, scope: Scope) -> tuple[list[Fact], Matrix]:
        rows = self._in_order(
            "id, context_id, text, source, vector", f"FROM facts WHERE {_SCOPE}", _sk(scope), binary=True
        )
        return [Fact(*r[:4]) for r in rows], self._matrix([r[4] for r in rows])

    # -- events --------------------------------------------------------------------------------------------

    def add_events(self, scope: Scope, events: Sequence[Event], vectors: Matrix) -> int:
        """Store the new events whose member facts are all stored (an event on a deleted fact is not written)."""
        sk, now, d = _sk(scope), time.time(), self.dialect
        stored: list[tuple[Event, Matrix]] = []
        with self._tx(scope=scope) as cur:
            held = integrity.existing(cur, "facts", "id", sk, (f for ev in events for f in ev.fact_ids))
            for ev, vec in zip(events, vectors, strict=True):
                if not held.issuperset(ev.fact_ids):
                    continue
                links = codec.supersedes_text(ev)
                row = (*sk, ev.id, ev.text, json.dumps(list(ev.fact_ids)), ev.source, links, d.encode(vec), now)
                into = f"events ({_SCOPE_COLS}, id, text, fact_ids, source, supersedes, vector, added_at) "
                if not cur.execute(d.insert(f"{into}VALUES (?,?,?,?,?,?,?,?,{d.vector_placeholder},?)"), row).rowcount:
                    continue
                stored.append((ev, vec))
                cur.executemany(
                    d.insert(f"event_facts ({_SCOPE_COLS}, event_id, fact_id) VALUES (?,?,?,?,?)"),
                    [(*sk, ev.id, fid) for fid in ev.fact_ids],
                )
            self._grew(cur, "events", len(stored))
            self._grew(cur, "event_facts", sum(len(e.fact_ids) for e, _ in stored))
            if stored:
                matrix = np.asarray([v for _, v in stored], dtype=np.float32).reshape(len(stored), -1)
                self._bump(cur, scope, Change(events=tuple(e for e, _ in stored), event_vectors=matrix))
        return len(stored)

    def events(self, scope: Scope, ids: Ids | None = None) -> list[Event]:
        return codec.events(self._rows(codec.EVENT_COLUMNS, "events", scope, ids=ids))

    def event_matrix(self, scope: Scope) -> tuple[list[Event], Matrix]:
        columns = f"{codec.EVENT_COLUMNS}, vector"
        rows = self._in_order(columns, f"FROM events WHERE {_SCOPE}", _sk(scope), binary=True)
        return codec.events(rows), self._matrix([r[codec.EVENT_VECTOR] for r in rows])

    # -- lifecycle: deletion, linking state, restored extraction state (see lifecycle) ---------------

    def delete_records(
        self, scope: Scope, *, turn_ids: Ids = (), context_ids: Ids = (), fact_ids: Ids = (), event_ids: Ids = ()
    ) -> dict[str, int]:
        """See the protocol; also deletes what was derived from these rows after the caller planned them
        (by another process: see :mod:`anchormem.store.sql.integrity`)."""
        with self._tx(scope=scope) as cur:
            more = integrity.derived(cur, _sk(scope), turn_ids, context_ids, fact_ids)
            counts = life.delete_records(
                cur,
                _sk(scope),
                turn_ids,
                [*context_ids, *more[0]],
                [*fact_ids, *more[1]],
                [*event_ids, *more[2]],
            )
            gone = Change(
                removed_contexts=(*context_ids, *more[0]),
                removed_facts=(*fact_ids, *more[1]),
                removed_events=(*event_ids, *more[2]),
                forgets=bool(turn_ids),
            )
            self._bump(cur, scope, gone)
        return counts

    def update_turn(self, scope: Scope, turn_id: str, text: str) -> dict[str, int]:
        """See the protocol. The derived rows are read inside the transaction, so a window another process
        cut from the old text after the caller looked is superseded too."""
        key = _sk(scope)
        with self._tx(scope=scope) as cur:
            changed = cur.execute(f"UPDATE turns SET text = ? WHERE {_SCOPE} AND id = ?", (text, *key, turn_id))
            if not changed.rowcount:
                return {"turns": 0, "contexts": 0, "facts": 0, "events": 0}
            contexts, facts, events = integrity.derived(cur, key, [turn_id], (), ())
            counts = life.delete_records(cur, key, (), contexts, facts, events)
            gone = Change(
                removed_contexts=tuple(contexts), removed_facts=tuple(facts), removed_events=tuple(events), forgets=True
            )
            self._bump(cur, scope, gone)
        return {**counts, "turns": 1}

    def delete_scope(self, scope: Scope) -> dict[str, int]:
        with self._tx(scope=scope) as cur:
            counts = life.delete_scope(cur, _sk(scope))
        self.journal.drop([scope])
        return counts

    def unlinked_facts(self, scope: Scope) -> list[str]:
        sql = f"SELECT id FROM facts WHERE {_SCOPE} AND linked = FALSE ORDER BY {self.dialect.order}"
        return [r[0] for r in self._q(sql, _sk(scope))]

    def set_linked(self, scope: Scope, fact_ids: Sequence[str], linked: bool = True) -> None:
        if fact_ids:
            with self._tx(scope=scope) as cur:
                life.set_linked(cur, _sk(scope), fact_ids, linked)
                # the facts were analysed while unlinked (``_grew`` after their insert): without fresh statistics
                # PostgreSQL takes every fact for unlinked and reads the scope's whole table for each add's
                # ``unlinked_facts`` (0.6 s at 180,000 facts) until autovacuum analyses it, which a copied
                # database (``CREATE DATABASE … TEMPLATE``) never does
                self._grew(cur, "facts", len(fact_ids))

    def restore_states(self, scope: Scope, states: Sequence[ExtractionState]) -> None:
        with self._tx(scope=scope) as cur:
            cur.executemany(
                f"UPDATE contexts SET status = ?, error = ?, attempts = ?, ungrounded = ? WHERE {_SCOPE} AND id = ?",
                [(s.status, s.error, s.attempts, s.ungrounded, *_sk(scope), s.context_id) for s in states],
            )
            self._bump(cur, scope)
