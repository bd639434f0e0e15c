"""Another process's writes, read from the store's log (:mod:`anchormem.store.sql.changelog`) as the journal's
:class:`~anchormem.store.journal.Change`\\ s, so a snapshot it holds is grown by them instead of loaded again; and the
nonce that names a version for the snapshot files. :class:`~anchormem.store.sql.core.SQLStore` calls these."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from anchormem.model import Context, Fact, Scope
from anchormem.store.journal import Change
from anchormem.store.protocol import Matrix
from anchormem.store.sql import changelog, codec
from anchormem.store.sql.dialect import Cursor, Dialect
from anchormem.store.sql.keys import SCOPE, sk


class LoggedStore(Protocol):
    """What these functions read of :class:`~anchormem.store.sql.core.SQLStore` (which imports this module:
    no import back)."""

    @property
    def dialect(self) -> Dialect: ...

    def _q(self, sql: str, params: Sequence[object] = (), *, binary: bool = False) -> list[tuple[Any, ...]]: ...

    def _tx(self, what: str = "write", scope: Scope | None = None) -> AbstractContextManager[Cursor]: ...

    def _matrix(self, values: list[Any]) -> Matrix: ...

    def contexts(self, scope: Scope, ids: Sequence[str] | None = None, session: str | None = None) -> list[Context]: ...

    def rows_by_id(self, columns: str, table: str, scope: Scope, ids: set[str]) -> dict[str, tuple[Any, ...]]: ...


_KINDS = ("contexts", "facts", "events")


def changes_since(store: LoggedStore, scope: Scope, version: int, until: int) -> list[Change] | None:
    """What versions ``version + 1`` to ``until`` of ``scope`` added and removed, as changes to apply to a snapshot
    of ``version``; None unless each of them is logged and none forgot messages. Rows added and removed again
    within the versions are left out."""
    logged = changelog.read(store._q, sk(scope), version, until)
    if logged is None:
        return None
    want = [{i for a in logged for i in getattr(a, kind)} for kind in _KINDS]
    contexts = {c.id: c for c in store.contexts(scope, ids=sorted(want[0]))} if want[0] else {}
    facts = store.rows_by_id("id, context_id, text, source, vector", "facts", scope, want[1])
    events = store.rows_by_id(f"{codec.EVENT_COLUMNS}, vector", "events", scope, want[2])
    removed = [{i for a in logged for i in getattr(a, f"removed_{kind}")} for kind in _KINDS]
    found: list[set[str]] = [set(contexts), set(facts), set(events)]
    for wanted, held, gone in zip(want, found, removed, strict=True):
        if not (wanted - held) <= gone:
            return None  # removed by a write after ``until``: the next search catches up with that
    out = []
    for a in logged:
        fact_rows = [facts[i] for i in a.facts if i in facts]
        event_rows = [events[i] for i in a.events if i in events]
        out.append(
            Change(
                contexts=tuple(contexts[i] for i in a.contexts if i in contexts),
                facts=tuple(Fact(*r[:4]) for r in fact_rows),
                fact_vectors=store._matrix([r[4] for r in fact_rows]),
                events=tuple(codec.events(event_rows)),
                event_vectors=store._matrix([r[codec.EVENT_VECTOR] for r in event_rows]),
                removed_contexts=a.removed_contexts,
                removed_facts=a.removed_facts,
                removed_events=a.removed_events,
            )
        )
    return out


def version_nonce(store: LoggedStore, scope: Scope, version: int, create: bool = False) -> str | None:
    """The random nonce the log holds for ``version`` of ``scope`` (None: not logged, or let go): a snapshot file
    names its version by it, so a file never matches other content of the same number. With ``create``, a current
    version the log never recorded (written before the log existed) is logged now, as unknown (nothing is known of
    what it added), and gets its nonce."""
    key = sk(scope)
    found = changelog.nonce(store._q, key, version)
    if found is not None or not create:
        return found
    with store._tx(scope=scope) as cur:
        row = cur.execute(f"SELECT version FROM scopes WHERE {SCOPE}", key).fetchone()
        if row is None or int(row[0]) != version:
            return None
        cur.execute(store.dialect.insert(changelog.INTO), (*key, version, changelog.entry(Change(unknown=True))))
    return changelog.nonce(store._q, key, version)
