"""Render retrieved memories as the reader prompt's memory block (deterministic)."""

from __future__ import annotations

from anchormem.model import ContextHit, SearchResult
from anchormem.prompts.answer import label_turns


def render_memories(result: SearchResult, *, with_turn_ids: bool = False) -> str:
    """Contexts as their own text (each starts with its ``DATE:`` line), in the result's reading
    order, separated by blank lines; then an ``Events:`` section with one numbered event per line.

    ``with_turn_ids`` prefixes each turn line with its id (``[D1:3] Ana said, "..."``) so that a
    reader can cite the turns it used. A context compared by date with the returned contexts on its
    subject (``ContextHit.latest``) is marked after its ``DATE:`` line: ``[latest on this subject]`` or
    ``[earlier: a later statement on this subject is below]``.
    """
    blocks = [_marked(hit, with_turn_ids) for hit in result.in_reading_order()]
    if result.events:
        lines = ["Events:"]
        lines.extend(f"{i}. {' '.join(hit.event.text.split())}" for i, hit in enumerate(result.events, 1))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


MARKS = {True: "[latest on this subject]", False: "[earlier: a later statement on this subject is below]"}


def _marked(hit: ContextHit, with_turn_ids: bool) -> str:
    text = label_turns(hit.context.text, hit.context.turn_ids) if with_turn_ids else hit.context.text.strip()
    if hit.latest is None:
        return text
    head, _, rest = text.partition("\n")
    return f"{head}\n{MARKS[hit.latest]}\n{rest}" if rest else f"{head}\n{MARKS[hit.latest]}"
