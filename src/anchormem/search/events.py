"""Which events earn a place beside the returned contexts.

An event ties facts of several contexts together. When every context its facts come from is
already returned, the reader has those words verbatim and the event adds nothing; it is left out.
An event is kept when at least one of its source facts lies in a context that was not returned (or
has no known source fact, so nothing can be said about it), and always when it says a change between its
facts (an LLM's event with supersession links: which statement holds now is what no single context says).

An extractive event (the offline path: its source facts' sentences joined) that is kept says only
what the returned contexts do not: its sentences from returned contexts, any sentence that a
returned context holds as a fact too, and any sentence a better event said already are left out
of its text (:func:`what_they_add`). An LLM's event is a narrative and is returned whole.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Event


def adds_to(snapshot: ScopeSnapshot, event_row: int, returned: Collection[int]) -> bool:
    """Whether event ``event_row`` holds a fact from a context outside ``returned`` (context rows), or says a
    change between its facts (``Event.supersedes``: which statement holds now, which no context says)."""
    if snapshot.events[event_row].supersedes:
        return True
    rows = {int(snapshot.fact_context[f]) for f in snapshot.event_facts[event_row]}
    rows.discard(-1)
    return not rows or not rows <= set(returned)


def events_that_add(
    snapshot: ScopeSnapshot, events: list[tuple[int, float]], returned: Collection[int]
) -> list[tuple[int, float]]:
    """``events`` (row, score), best first, without those whose source contexts are all returned."""
    chosen = set(returned)
    return [(e, score) for e, score in events if adds_to(snapshot, e, chosen)]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def what_they_add(
    snapshot: ScopeSnapshot, events: list[tuple[int, float]], returned: Collection[int]
) -> dict[int, Event]:
    """The ``events`` (row, score; best first) as handed over beside the ``returned`` contexts
    (rows). An extractive event keeps those sentences of its source facts that no returned context
    holds and no better event has said already, each once; any other event, or one without known
    source facts, is returned as it is."""
    chosen = set(returned)
    said = {_norm(snapshot.facts[f].text) for row in chosen for f in snapshot.context_facts[row]}
    out: dict[int, Event] = {}
    for e, _ in events:
        event = snapshot.events[e]
        fact_rows = snapshot.event_facts[e]
        if event.source != "extractive" or not fact_rows:
            out[e] = event
            continue
        texts: dict[str, str] = {}
        for f in fact_rows:
            text = snapshot.facts[f].text
            key = _norm(text)
            if int(snapshot.fact_context[f]) not in chosen and key not in said:
                texts.setdefault(key, text.strip())
        said.update(texts)
        out[e] = replace(event, text=" ".join(texts.values()))
    return out
