"""Editing a stored turn: a delete of the old words and an add of the new ones, in place.

The turn keeps its id, session, position, speaker, time and metadata; only its text changes. What was
derived from the old text goes as a delete takes it (the windows that held the turn, their facts, the
events built on those facts, cached LLM exchanges holding the old text, the freed bytes of the store
file), and the session is re-cut and derived again from the new text, like an add.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from anchormem.errors import NotFoundError
from anchormem.lifecycle.delete import Rebuild, rewrite
from anchormem.model import Scope, UpdateReport
from anchormem.store import cascade
from anchormem.store.protocol import Store
from anchormem.wire.scopes import describe
from anchormem.wire.validation import check_label, check_text


def check_update(turn_id: object, text: object) -> tuple[str, str]:
    """The turn id and new text, or :class:`~anchormem.errors.InputError` (the rules of an added message)."""
    return check_label(turn_id, "turn_id", "update"), check_text(text, "text", "update")


def update_turn(
    store: Store, scope: Scope, turn_id: str, text: str, rebuild: Rebuild, cache: object | None
) -> UpdateReport:
    """Replace the text of turn ``turn_id`` of ``scope`` and re-derive its session; the caller holds the
    user's writer lock. Unknown turn: :class:`NotFoundError`; the same text: a report with ``updated``
    False and nothing changed."""
    turn = next(iter(store.turns(scope, ids=[turn_id])), None)
    if turn is None:
        raise NotFoundError(f"no turn {turn_id!r} in the memory of {describe(scope)}")
    report = UpdateReport(turn_id=turn_id)
    if turn.text == text:
        return report
    plan = cascade.plan(store, scope, turn_ids=[turn_id])

    def replace() -> dict[str, int]:
        counts = store.update_turn(scope, turn_id, text)
        if not counts["turns"]:  # deleted by another process since it was read
            raise NotFoundError(f"no turn {turn_id!r} in the memory of {describe(scope)}")
        return counts

    # The old text is forgotten from the cache as a delete forgets: before the store holds the new text.
    done = rewrite(
        store,
        cache,
        [turn.text, *plan.texts],
        replace,
        lambda: rebuild(scope, [turn.session]),
        "deriving from the new text stopped",
    )
    rebuilt = done.rebuilt
    kinds = ("contexts", "facts", "events")
    counts: dict[str, Any] = {f"{kind}_superseded": done.counts[kind] for kind in kinds}
    counts |= {f"{kind}_added": getattr(rebuilt, f"{kind}_added") for kind in kinds}
    report = UpdateReport(turn_id=turn_id, updated=True, cache_entries_forgotten=done.forgotten, notes=rebuilt.notes)
    return dataclasses.replace(report, llm_calls=rebuilt.llm_calls, **counts)
