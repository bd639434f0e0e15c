"""Which events earn a place beside the returned contexts.

An event ties facts of several contexts together. When every context its facts come from is
already returned, the reader has those words verbatim and the event adds nothing; it is left out.
An event is kept when at least one of its source facts lies in a context that was not returned (or
has no known source fact, so nothing can be said about it).
"""

from __future__ import annotations

from collections.abc import Collection

from anchormem.query.snapshot import ScopeSnapshot


def adds_to(snapshot: ScopeSnapshot, event_row: int, returned: Collection[int]) -> bool:
    """Whether event ``event_row`` holds a fact from a context outside ``returned`` (context rows)."""
    rows = {int(snapshot.fact_context[f]) for f in snapshot.event_facts[event_row]}
    rows.discard(-1)
    return not rows or not rows <= set(returned)


def events_that_add(
    snapshot: ScopeSnapshot, events: list[tuple[int, float]], returned: Collection[int]
) -> list[tuple[int, float]]:
    """``events`` (row, score), best first, without those whose source contexts are all returned."""
    chosen = set(returned)
    return [(e, score) for e, score in events if adds_to(snapshot, e, chosen)]
