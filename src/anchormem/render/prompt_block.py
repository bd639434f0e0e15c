"""A search result as one prompt-ready block within a character budget.

The best contexts are taken first (by rank) while the block fits ``max_chars``; windows of one
session that share turns are merged into one span, so no turn appears twice; spans are shown in
conversation order, each headed by its date, session and turn ids, each turn line prefixed with its
id. Where the result compared statements on the query's subject by date (``ContextHit.latest``), a
span is marked ``latest`` or ``earlier``. Events follow, best first, as long as they fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the model renders itself through this module: no import back at run time
    from anchormem.model import ContextHit, Scope, SearchResult

_TURN_START = re.compile(r'^.{1,200}? said, "')
_CUT = "…"


@dataclass
class _Span:
    session: str
    date: str | None
    turns: list[tuple[str, str]]  # (turn id, rendered line), in conversation order
    first: int  # smallest context position, to order spans within a session
    order: int  # reading order of its first context, to order spans across sessions
    latest: bool | None
    scope: Scope | None = None  # the stored scope of its contexts (turn ids repeat across scopes)


def turn_lines(hit: ContextHit) -> list[tuple[str, str]]:
    """The context's turns as (turn id, text) pairs, read from its rendered text.

    One line per turn when the lines match the turn ids one to one; otherwise lines are grouped at
    each ``Speaker said, "`` start; if that does not give one group per turn either, the whole body
    is one entry under the context's first turn id with the others listed."""
    context = hit.context
    lines = context.text.strip().splitlines()
    body = lines[1:] if lines and lines[0].startswith("DATE:") else lines
    ids = list(context.turn_ids)
    if len(body) == len(ids):
        return list(zip(ids, body, strict=True))
    groups: list[list[str]] = []
    for line in body:
        if _TURN_START.match(line) or not groups:
            groups.append([line])
        else:
            groups[-1].append(line)
    if len(groups) == len(ids):
        return [(tid, "\n".join(group)) for tid, group in zip(ids, groups, strict=True)]
    return [(",".join(ids), "\n".join(body))] if ids else []


def render_prompt(result: SearchResult, max_chars: int | None = None) -> str:
    """``result`` as one block of at most ``max_chars`` characters (no limit when None)."""
    if max_chars is not None and max_chars <= 0:
        return ""
    reading = {id(hit): i for i, hit in enumerate(result.in_reading_order())}
    kept: list[ContextHit] = []
    text = ""
    for hit in result.contexts:  # best first
        candidate = _render(result, [*kept, hit], 0, reading)
        if max_chars is None or len(candidate) <= max_chars:
            kept.append(hit)
            text = candidate
        elif not kept:  # even the best context alone is too long: show what fits of it
            return _fit(candidate, max_chars)
    for n in range(1, len(result.events) + 1):
        candidate = _render(result, kept, n, reading)
        if max_chars is not None and len(candidate) > max_chars:
            break
        text = candidate
    return text


def _render(result: SearchResult, hits: list[ContextHit], n_events: int, reading: dict[int, int]) -> str:
    if not hits and not n_events:
        return ""
    spans = _spans(hits, reading)
    marked = any(s.latest is not None for s in spans)
    several = len({s.scope for s in spans}) > 1  # then each span says which memory it comes from
    head = f"Memories for: {' '.join(result.query.split())}"
    if spans:
        head += f"\n{len(spans)} excerpt{'s' if len(spans) != 1 else ''} in conversation order"
        if marked:
            head += "; [latest]/[earlier] compare statements on this subject by date"
    blocks = [head]
    for span in spans:
        ids = [tid for tid, _ in span.turns]
        where = f"turn {ids[0]}" if len(ids) == 1 else f"turns {ids[0]}–{ids[-1]}"
        mark = {True: " [latest]", False: " [earlier]", None: ""}[span.latest]
        origin = f" · {_scope_label(span.scope)}" if several and span.scope is not None else ""
        header = f"## {span.date or 'date unknown'} · session {span.session} · {where}{origin}{mark}"
        blocks.append("\n".join([header, *(f"[{tid}] {line}" for tid, line in span.turns)]))
    if n_events:
        lines = ["Events (summaries across sessions):"]
        lines.extend(f"{i}. {' '.join(hit.event.text.split())}" for i, hit in enumerate(result.events[:n_events], 1))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _spans(hits: list[ContextHit], reading: dict[int, int]) -> list[_Span]:
    """Hits merged into spans: hits of one scope and session sharing a turn (directly or through
    others) become one span whose turns are listed once, in conversation order."""
    ordered = sorted(hits, key=lambda h: (reading.get(id(h), 0), h.context.position))
    spans: list[_Span] = []
    for hit in ordered:
        pairs = turn_lines(hit)
        ids = {tid for tid, _ in pairs}
        target = next(
            (
                s
                for s in spans
                if s.scope == hit.scope and s.session == hit.context.session and ids & {tid for tid, _ in s.turns}
            ),
            None,
        )
        if target is None:
            spans.append(
                _Span(
                    session=hit.context.session,
                    date=hit.context.date,
                    turns=pairs,
                    first=hit.context.position,
                    order=reading.get(id(hit), 0),
                    latest=hit.latest,
                    scope=hit.scope,
                )
            )
            continue
        seen = {tid for tid, _ in target.turns}
        new = [(tid, line) for tid, line in pairs if tid not in seen]
        if hit.context.position < target.first:
            target.turns = new + target.turns
            target.first = hit.context.position
            target.date = hit.context.date or target.date
        else:
            target.turns = target.turns + new
        target.latest = _merge_mark(target.latest, hit.latest)
    return sorted(spans, key=lambda s: s.order)


def _scope_label(scope: Scope) -> str:
    """``user ana / agent coach / run r1`` (the parts the scope names)."""
    parts = (("user", scope.user_id), ("agent", scope.agent_id), ("run", scope.run_id))
    return " / ".join(f"{name} {value}" for name, value in parts if value)


def _merge_mark(a: bool | None, b: bool | None) -> bool | None:
    if a is None:
        return b
    if b is None:
        return a
    return a or b


def _fit(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[: max(0, max_chars - len(_CUT))].rstrip() + _CUT
