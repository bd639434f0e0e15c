"""Forgetting: resolve a delete target to turns, remove them with everything derived from
them, rebuild what the surviving words still support, and scrub every copy.

Copies scrubbed: the store's rows (cascade), retrieval snapshots (the scope version is
bumped), LLM responses whose request or response holds deleted text (the response cache,
then its file is vacuumed), and the store file's free pages and WAL (``Store.scrub``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from anchormem.errors import LLMError, NotFoundError
from anchormem.lifecycle import forgotten
from anchormem.llm.batch import BatchLLM
from anchormem.llm.cache import CachedLLM, forget_in_file, scrub_file
from anchormem.model import DeleteReport, IngestReport, Scope
from anchormem.parts import BatchStoreFile
from anchormem.render.fence import fenced_body, one_line
from anchormem.store import cascade
from anchormem.store.protocol import Store
from anchormem.wire.scopes import describe
from anchormem.wire.validation import check_label

Rebuild = Callable[[Scope, Sequence[str]], IngestReport]


def resolve(
    store: Store, scope: Scope, session: str | None, turn: str | None, context: str | None
) -> tuple[dict[str, str], list[str]]:
    """The target as given (for the history) and the ids of the turns it deletes."""
    for name, value in (("session", session), ("turn", turn), ("context", context)):
        if value is not None:
            check_label(value, name, "delete")
    if session is not None:
        ids = [t.id for t in store.turns(scope, session)]
        if not ids:
            raise NotFoundError(f"no session {session!r} in the memory of {describe(scope)}")
        return {"session": session}, ids
    if turn is not None:
        if not store.turns(scope, ids=[turn]):
            raise NotFoundError(f"no turn {turn!r} in the memory of {describe(scope)}")
        return {"turn": turn}, [turn]
    assert context is not None
    found = store.contexts(scope, [context])
    if not found:
        raise NotFoundError(f"no context {context!r} in the memory of {describe(scope)}")
    return {"context": context}, list(found[0].turn_ids)


class Rewritten(NamedTuple):
    """What :func:`rewrite` did: cache entries forgotten, the store's counts of the change, and what was
    derived again (its notes say when rebuilding stopped)."""

    forgotten: int
    counts: dict[str, int]
    rebuilt: IngestReport


def rewrite(
    store: Store,
    cache: object | None,
    texts: Iterable[str],
    change: Callable[[], dict[str, int]],
    rederive: Callable[[], IngestReport] = IngestReport,
    stopped: str = "rebuilding stopped",
) -> Rewritten:
    """The one order of a change that forgets words (a delete, an update): first the cached LLM exchanges
    holding ``texts`` (once the store has changed nothing names them, so a crash after the change could
    not be followed by a re-run that finishes the forgetting), then ``change`` of the store, then
    ``rederive`` of what the remaining words support (default: nothing; an LLM failure leaves the change standing and is
    noted as ``stopped: <error>``; the next add finishes it), and whatever failed after the forgetting,
    a scrub of the store file's freed bytes."""
    forgotten = forget_cached(cache, texts)
    try:
        counts = change()
        try:
            rebuilt = rederive()
        except LLMError as exc:
            rebuilt = IngestReport(notes=[f"{stopped}: {exc}"])
    finally:
        store.scrub()
    return Rewritten(forgotten, counts, rebuilt)


def delete_turns(
    store: Store, scope: Scope, turn_ids: Sequence[str], rebuild: Rebuild, cache: object | None
) -> DeleteReport:
    plan = cascade.plan(store, scope, turn_ids=turn_ids)
    forgotten.remember(store, scope, plan.turn_ids)
    done = rewrite(
        store,
        cache,
        plan.texts,
        lambda: cascade.apply(store, scope, plan),
        lambda: rebuild(scope, sorted(plan.sessions)),
        "rebuilding the surviving windows stopped",
    )
    return _deleted(done.counts, done.forgotten, done.rebuilt)


def delete_scope(store: Store, scope: Scope, cache: object | None) -> DeleteReport:
    turns = store.turns(scope)
    forgotten.remember(store, scope, [t.id for t in turns])
    texts: list[str] = [x for t in turns for x in (t.text, t.image_caption) if x]
    texts += [f.text for f in store.facts(scope)] + [e.text for e in store.events(scope)]
    done = rewrite(store, cache, texts, lambda: store.delete_scope(scope))  # nothing is left to rebuild
    return _deleted(done.counts, done.forgotten, done.rebuilt)


def _deleted(counts: dict[str, int], forgotten: int, rebuilt: IngestReport) -> DeleteReport:
    return DeleteReport(
        turns=counts["turns"],
        contexts=counts["contexts"],
        facts=counts["facts"],
        events=counts["events"],
        contexts_rebuilt=rebuilt.contexts_added,
        facts_rebuilt=rebuilt.facts_added,
        events_rebuilt=rebuilt.events_added,
        cache_entries_forgotten=forgotten,
        llm_calls=rebuilt.llm_calls,
        notes=rebuilt.notes,
    )


def forget_cached(cache: object | None, texts: Iterable[str]) -> int:
    """Drop every cached LLM exchange that holds one of ``texts``, then vacuum the cache file.

    ``cache`` is a :class:`~anchormem.llm.cache.CachedLLM` or a batch store (anything with
    ``forget_containing``), the path of a cache file when no LLM is configured now but one was before, a
    :class:`~anchormem.parts.BatchStoreFile`, or a list of these (:meth:`~anchormem.parts.Parts.forgetting`)."""
    unique = list(dict.fromkeys(form for t in texts if t.strip() for form in _forms(t)))
    if isinstance(cache, list):  # the response cache and the batch store (``Parts.forgetting``)
        return sum(forget_cached(one, unique) for one in cache)
    if isinstance(cache, BatchStoreFile):
        batch = BatchLLM("none", cache.path)
        try:
            return forget_cached(batch, unique)
        finally:
            batch.close()
    if isinstance(cache, Path):  # the cache file an earlier configuration left: the cache forgets from it
        return forget_in_file(cache, unique)
    if isinstance(cache, CachedLLM):  # the cache owns its file: it forgets and scrubs it
        return cache.forget(unique)
    forget = getattr(cache, "forget_containing", None)
    if forget is None:
        return 0
    n = sum(int(forget(text)) for text in unique)
    path = getattr(cache, "path", None)
    if n and isinstance(path, Path) and path.exists():
        scrub_file(path)
    return n


def _forms(text: str) -> list[str]:
    """``text`` as stored, and as a prompt holds it (fenced line by line, or folded onto one line) where that
    form does not already contain it: a cached request holding the form then holds nothing else to find."""
    return [text, *(form for form in dict.fromkeys((fenced_body(text), one_line(text))) if text not in form)]


class _NoLLM:
    """Stands in for the endpoint when a cache file is opened only to forget from it."""

    model = "none"

    def complete(self, messages: Any, params: Any = None) -> Any:
        raise LLMError("no LLM is configured")


def scopes_under(store: Store, user_id: str, agent_id: str | None, run_id: str | None) -> list[Scope]:
    """The stored scopes of a user, narrowed by agent and run when given."""
    out = [
        s
        for s in store.scopes()
        if s.user_id == user_id
        and (agent_id is None or s.agent_id == agent_id)
        and (run_id is None or s.run_id == run_id)
    ]
    if not out:
        raise NotFoundError(f"no memory for {describe(Scope(user_id, agent_id, run_id))}")
    return out


def summary(reports: Iterable[DeleteReport]) -> DeleteReport:
    total = DeleteReport()
    for r in reports:
        total.add(r)
    return total
