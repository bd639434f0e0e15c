"""The contexts of a block merged into spans: contexts of one scope and session that share a message are
shown under one header, in conversation order."""

from __future__ import annotations

import re
from dataclasses import dataclass

from anchormem.render.shapes import ContextHit, Scope


@dataclass
class Span:
    session: str
    date: str | None
    hits: list[ContextHit]
    order: int  # reading order of its first context, to order spans across sessions
    latest: bool | None
    scope: Scope | None = None  # the stored scope of its contexts (turn ids repeat across scopes)


def spans_of(hits: list[ContextHit], reading: dict[int, int]) -> list[Span]:
    """Hits merged into spans: hits of one scope and session sharing a message (a whole one, or passages of
    one long message; directly or through others) become one span, under one header. Each message points
    at its span, so a hit finds the spans it joins at once."""
    ordered = sorted(hits, key=lambda h: (reading.get(id(h), 0), h.context.position))
    spans: list[Span] = []
    owner: dict[tuple[Scope | None, str, str], int] = {}  # message -> index of its span in ``spans``
    members: list[list[tuple[Scope | None, str, str]]] = []  # span index -> its messages
    alive: list[bool] = []
    for hit in ordered:
        keys = [(hit.scope, hit.context.session, tid) for tid in hit.context.turn_ids]
        joined = sorted({owner[k] for k in keys if k in owner})
        if not joined:
            target = len(spans)
            spans.append(
                Span(hit.context.session, hit.context.date, [hit], reading.get(id(hit), 0), hit.latest, hit.scope)
            )
            members.append([])
            alive.append(True)
        else:
            target = joined[0]
            span = spans[target]
            for other in joined[1:]:  # the hit bridges spans: one span
                span.hits.extend(spans[other].hits)
                span.latest = _merge_mark(span.latest, spans[other].latest)
                for k in members[other]:
                    owner[k] = target
                members[target].extend(members[other])
                members[other], alive[other] = [], False
            span.hits.append(hit)
            earliest = min(span.hits, key=lambda h: h.context.position)
            span.date = earliest.context.date or span.date
            span.latest = _merge_mark(span.latest, hit.latest)
        for k in keys:
            if k not in owner:
                owner[k] = target
                members[target].append(k)
    return sorted((s for s, live in zip(spans, alive, strict=True) if live), key=lambda s: s.order)


_CLOCK_FIRST = re.compile(r"^\s*\d{1,2}[:.]\d{2}(?:\s*[ap]\.?\s?m\.?)?\s+on\s+(?=\S)", re.IGNORECASE)
_ISO_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$")


def day(date: str) -> str:
    """The day of a session's date as the caller gave it, its time of day left out: "7:40 pm on 9 February,
    2025" -> "9 February, 2025", "2025-02-09T19:40:00Z" -> "2025-02-09"; any other text as it is."""
    iso = _ISO_TIME.match(date.strip())
    if iso:
        return iso.group(1)
    return _CLOCK_FIRST.sub("", date, count=1).strip() or date


def scope_label(scope: Scope) -> str:
    """``user ana / agent coach / run r1`` (the parts the scope names)."""
    parts = (("user", scope.user_id), ("agent", scope.agent_id), ("run", scope.run_id))
    return " / ".join(f"{name} {value}" for name, value in parts if value)


def _merge_mark(a: bool | None, b: bool | None) -> bool | None:
    if a is None:
        return b
    if b is None:
        return a
    return a or b
