"""SQL that the SQLite and PostgreSQL stores share, written once with the driver's placeholder."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from anchormem.model import Event, HistoryEntry, Scope


def history_query(scope: Scope, limit: int | None, placeholder: str) -> tuple[str, list[object]]:
    """The newest ``limit`` history rows of a user, narrowed by agent/run when the scope names them."""
    ph = placeholder
    sql = f"SELECT seq, timestamp, user_id, agent_id, run_id, op, detail FROM history WHERE user_id = {ph}"
    params: list[object] = [scope.user_id]
    if scope.agent_id is not None:
        sql += f" AND agent_id = {ph}"
        params.append(scope.agent_id)
    if scope.run_id is not None:
        sql += f" AND run_id = {ph}"
        params.append(scope.run_id)
    sql += " ORDER BY seq DESC"
    if limit is not None:
        sql += f" LIMIT {ph}"
        params.append(max(0, int(limit)))
    return sql, params


def history_entries(rows: Sequence[tuple[Any, ...]]) -> list[HistoryEntry]:
    """Rows of :func:`history_query` as entries, oldest first."""
    out = [
        HistoryEntry(
            seq=int(r[0]),
            timestamp=float(r[1]),
            op=r[5],
            scope=Scope(r[2], r[3] or None, r[4] or None),
            detail=json.loads(r[6]),
        )
        for r in rows
    ]
    return out[::-1]


EVENT_COLUMNS = "id, text, fact_ids, source"


def event_from_row(row: Sequence[Any]) -> Event:
    """An event from the first four columns of a row that selected :data:`EVENT_COLUMNS`."""
    return Event(id=row[0], text=row[1], fact_ids=tuple(json.loads(row[2])), source=row[3])
