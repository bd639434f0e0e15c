"""What a delete would take with it, computed without deleting anything (a dry run).

The same resolution and cascade as :mod:`anchormem.lifecycle.delete`: the target's turns, every
context quoting one of them, those contexts' facts, the events built on those facts, and the cached
LLM responses holding any of their text (counted read-only). Sessions whose surviving turns would
be re-cut into new windows are listed too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from anchormem.errors import InputError, NotFoundError, StoreError
from anchormem.lifecycle.delete import resolve, scopes_under
from anchormem.llm.cache import CachedLLM, count_holding
from anchormem.model import Scope
from anchormem.store import cascade
from anchormem.store.protocol import Store
from anchormem.wire.scopes import describe

MAX_IDS = 200  # ids listed per kind; the counts are always complete


@dataclass
class DeletePreview:
    target: dict[str, str | bool]
    turns: int = 0
    contexts: int = 0
    facts: int = 0
    events: int = 0
    cache_entries: int = 0
    sessions_recut: list[str] = field(default_factory=list)
    turn_ids: list[str] = field(default_factory=list)
    context_ids: list[str] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)
    event_ids: list[str] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)


def preview_delete(
    store: Store,
    user_id: str,
    agent_id: str | None,
    run_id: str | None,
    *,
    session: str | None = None,
    turn: str | None = None,
    context: str | None = None,
    all: bool = False,
    cache: object | None = None,
) -> DeletePreview:
    """What ``Memory.delete`` with the same arguments would remove now."""
    targets = sum(x is not None for x in (session, turn, context)) + bool(all)
    if targets != 1:
        raise InputError("delete needs exactly one target: session, turn, context or all")
    if all:
        out = DeletePreview(target={"all": True})
        texts: list[str] = []
        for scope in scopes_under(store, user_id, agent_id, run_id):
            turns, contexts, facts, events = (
                store.turns(scope),
                store.contexts(scope),
                store.facts(scope),
                store.events(scope),
            )
            out.scopes.append(scope)
            _extend(out, [t.id for t in turns], [c.id for c in contexts], [f.id for f in facts], [e.id for e in events])
            texts += [x for t in turns for x in (t.text, t.image_caption) if x]
            texts += [f.text for f in facts] + [e.text for e in events]
        out.cache_entries = count_cached(cache, texts)
        return out
    scope = Scope(user_id, agent_id, run_id)
    if store.version(scope) == 0:
        raise NotFoundError(f"no memory for {describe(scope)}")
    target, turn_ids = resolve(store, scope, session, turn, context)
    plan = cascade.plan(store, scope, turn_ids=turn_ids)
    out = DeletePreview(target=dict(target), scopes=[scope])
    _extend(out, plan.turn_ids, plan.context_ids, plan.fact_ids, plan.event_ids)
    gone = set(plan.turn_ids)
    out.sessions_recut = sorted(s for s in plan.sessions if any(t.id not in gone for t in store.turns(scope, s)))
    out.cache_entries = count_cached(cache, plan.texts)
    return out


def _extend(out: DeletePreview, turns: list[str], contexts: list[str], facts: list[str], events: list[str]) -> None:
    out.turns += len(turns)
    out.contexts += len(contexts)
    out.facts += len(facts)
    out.events += len(events)
    for name, ids in (("turn_ids", turns), ("context_ids", contexts), ("fact_ids", facts), ("event_ids", events)):
        listed: list[str] = getattr(out, name)
        listed.extend(ids[: max(0, MAX_IDS - len(listed))])


def count_cached(cache: object | None, texts: Iterable[str]) -> int:
    """How many cached LLM exchanges hold one of ``texts`` (what ``forget_cached`` would drop).

    ``cache`` is a response cache (:class:`~anchormem.llm.cache.CachedLLM`) or the path of a cache file; the
    file is read by the cache's own :func:`~anchormem.llm.cache.count_holding` and nothing is changed. An
    unreadable cache is reported as holding nothing: the delete itself will say more."""
    path = cache if isinstance(cache, Path) else cache.path if isinstance(cache, CachedLLM) else None
    if path is None:
        return 0
    try:
        return count_holding(path, texts)
    except StoreError:
        return 0
