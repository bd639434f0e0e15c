"""``anchormem maintenance check``: is the store whole?

Two kinds of check. The database's own (SQLite: ``PRAGMA integrity_check``, every page and index; PostgreSQL
has no equivalent built in: ``amcheck`` / ``pg_checksums`` are the server's tools). Then the store's own
invariants, which no foreign key enforces (writes keep them inside one transaction, see
:mod:`~anchormem.store.sql.integrity`): every migration applied, every fact's context stored, every turn
of a context stored, every event with member facts that exist, every member of an event stored, one
vector size per table, a scope row for every scope that holds records.

The check only reads; a problem is reported with a count and an example id, never repaired.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Query = Callable[[str, Sequence[object]], list[tuple[Any, ...]]]
"""Runs one read with ``?`` placeholders and returns its rows."""

_KEY = "user_id, agent_id, run_id"
_SAME_SCOPE = "{a}.user_id = {b}.user_id AND {a}.agent_id = {b}.agent_id AND {a}.run_id = {b}.run_id"


@dataclass
class CheckReport:
    """What :func:`check` found: ``problems`` (each one line), and ``checked`` (what was looked at)."""

    location: str
    database_check: str  # "ok", "not available (...)", or the first of the database's own findings
    checked: dict[str, int] = field(default_factory=dict)  # table -> rows looked at
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check(
    q: Query, location: str, database_findings: list[str] | None, wanted_migrations: Sequence[str]
) -> CheckReport:
    """Check the store behind ``q``; ``database_findings`` is what the database's own check said (``None``:
    it has none), ``wanted_migrations`` the migrations this version needs."""
    if database_findings is None:
        verdict = "not available on this database (PostgreSQL: use amcheck or pg_checksums)"
    elif database_findings == ["ok"]:
        verdict = "ok"
    else:
        verdict = f"{len(database_findings)} findings, first: {database_findings[0]}"
    report = CheckReport(location=location, database_check=verdict)
    if database_findings not in (None, ["ok"]):
        report.problems.append(f"integrity_check: {verdict}")
    applied = {r[0] for r in q("SELECT name FROM _migrations", ())}
    missing = [m for m in wanted_migrations if m not in applied]
    if missing:
        report.problems.append(f"migrations not applied: {', '.join(missing)}")
    for table in ("turns", "contexts", "facts", "events", "event_facts", "scopes"):
        report.checked[table] = int(q(f"SELECT COUNT(*) FROM {table}", ())[0][0])
    _orphans(q, report)
    _context_turns(q, report)
    _vector_sizes(q, report)
    return report


def _problem(report: CheckReport, what: str, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        example = " / ".join(str(v) for v in rows[0] if v)
        report.problems.append(f"{len(rows)} {what} (first: {example})")


def _orphans(q: Query, report: CheckReport) -> None:
    def missing(child: str, alias: str, parent: str, join: tuple[str, str]) -> str:
        same = _SAME_SCOPE.format(a="p", b=alias)
        return (
            f"SELECT {alias}.user_id, {alias}.{join[0]} FROM {child} {alias} WHERE NOT EXISTS "
            f"(SELECT 1 FROM {parent} p WHERE {same} AND p.id = {alias}.{join[1]})"
        )

    _problem(report, "facts whose context is missing", q(missing("facts", "f", "contexts", ("id", "context_id")), ()))
    _problem(
        report,
        "event links whose event is missing",
        q(missing("event_facts", "l", "events", ("event_id", "event_id")), ()),
    )
    _problem(
        report,
        "event links whose fact is missing",
        q(missing("event_facts", "l", "facts", ("fact_id", "fact_id")), ()),
    )
    same = _SAME_SCOPE.format(a="l", b="e")
    empty = (
        "SELECT e.user_id, e.id FROM events e WHERE NOT EXISTS "
        f"(SELECT 1 FROM event_facts l WHERE {same} AND l.event_id = e.id)"
    )
    _problem(report, "events with no member facts", q(empty, ()))
    scoped = " UNION ".join(f"SELECT DISTINCT {_KEY} FROM {t}" for t in ("turns", "contexts", "facts", "events"))
    same = _SAME_SCOPE.format(a="s", b="r")
    unlisted = f"SELECT r.user_id, r.agent_id FROM ({scoped}) r WHERE NOT EXISTS (SELECT 1 FROM scopes s WHERE {same})"
    _problem(report, "scopes holding records but missing from the scopes table", q(unlisted, ()))


def _context_turns(q: Query, report: CheckReport) -> None:
    turns: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for user, agent, run, tid in q(f"SELECT {_KEY}, id FROM turns", ()):
        turns[(user, agent, run)].add(tid)
    bad: list[tuple[Any, ...]] = []
    unreadable: list[tuple[Any, ...]] = []
    for user, agent, run, cid, tids in q(f"SELECT {_KEY}, id, turn_ids FROM contexts", ()):
        try:
            ids = json.loads(tids)
        except (TypeError, ValueError):
            unreadable.append((user, cid))
            continue
        if not isinstance(ids, list) or not ids:
            unreadable.append((user, cid))
        elif not set(map(str, ids)) <= turns[(user, agent, run)]:
            bad.append((user, cid))
    _problem(report, "contexts whose turn list cannot be read", unreadable)
    _problem(report, "contexts holding a turn that is missing", bad)


def _vector_sizes(q: Query, report: CheckReport) -> None:
    for table in ("facts", "events"):
        sizes: Counter[int] = Counter()
        odd: list[tuple[Any, ...]] = []
        rows = q(f"SELECT user_id, id, vector FROM {table}", ())
        for _user, _id, vector in rows:
            sizes[_size(vector)] += 1
        if len(sizes) > 1:
            usual = sizes.most_common(1)[0][0]
            odd = [(u, i) for u, i, v in rows if _size(v) != usual]
            _problem(report, f"{table} whose vector size differs from the usual {usual}", odd)


def _size(vector: Any) -> int:
    """Dimensions of a stored vector (SQLite: a float32 blob; PostgreSQL: a pgvector value)."""
    if isinstance(vector, bytes | bytearray | memoryview):
        return -1 if len(vector) % 4 else len(vector) // 4
    try:
        return len(vector)
    except TypeError:
        return -1
