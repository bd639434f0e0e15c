"""What a deletion takes with it.

Deleting turns removes every context that holds one of them (the words are gone, so
every window that quoted them goes), the facts of those contexts, and every event
built on one of those facts. The store marks the surviving facts of a removed event
unlinked, so the next linking re-forms clusters around them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from anchormem.model import Scope
from anchormem.store.protocol import Store


@dataclass
class Cascade:
    turn_ids: list[str] = field(default_factory=list)
    context_ids: list[str] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)
    event_ids: list[str] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)  # sessions whose windows must be re-cut
    texts: list[str] = field(default_factory=list)  # deleted and derived texts (to forget from caches)

    @property
    def empty(self) -> bool:
        return not (self.turn_ids or self.context_ids or self.fact_ids or self.event_ids)


def plan(store: Store, scope: Scope, turn_ids: Collection[str] = (), context_ids: Collection[str] = ()) -> Cascade:
    """The records to delete with ``turn_ids`` (the words) and ``context_ids`` (windows only)."""
    gone_turns = set(turn_ids)
    out = Cascade()
    for t in store.turns(scope):
        if t.id in gone_turns:
            out.turn_ids.append(t.id)
            out.sessions.add(t.session)
            out.texts.extend(x for x in (t.text, t.image_caption) if x)
    wanted = set(context_ids)
    for c in store.contexts(scope):
        if c.id in wanted or gone_turns.intersection(c.turn_ids):
            out.context_ids.append(c.id)
            out.sessions.add(c.session)
            out.texts.append(c.text)
    gone_contexts = set(out.context_ids)
    for f in store.facts(scope):
        if f.context_id in gone_contexts:
            out.fact_ids.append(f.id)
            out.texts.append(f.text)
    gone_facts = set(out.fact_ids)
    for e in store.events(scope):
        if gone_facts.intersection(e.fact_ids):
            out.event_ids.append(e.id)
            out.texts.append(e.text)
    return out


def apply(store: Store, scope: Scope, cascade: Cascade) -> dict[str, int]:
    if cascade.empty:
        return {"turns": 0, "contexts": 0, "facts": 0, "events": 0}
    return store.delete_records(
        scope,
        turn_ids=cascade.turn_ids,
        context_ids=cascade.context_ids,
        fact_ids=cascade.fact_ids,
        event_ids=cascade.event_ids,
    )
