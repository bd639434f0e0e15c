"""A context's text read back into message lines: who said each piece and its quoted text (a passage of a long
message with ``…`` where the message goes on); a long message shown by the sentences that hold the context's anchors."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from anchormem.render.excerpt import excerpt
from anchormem.render.fence import flat
from anchormem.render.shapes import ContextHit

TURN_START = re.compile(r'^(?P<speaker>.{1,200}?) said(?P<part> \(part \d+ of \d+\))?, "')
"""The start of a turn's line in a context's text (``Speaker said, "…``, ``Speaker said (part 2 of 3), "…``), as
:func:`anchormem.ingest.chunk.render_piece` writes it."""
CONTINUED = '  "'
CUT = "…"
EXCERPT_ABOVE = 300  # a message's text up to this many characters is always shown whole
Piece = tuple[str, int | None, int | None]  # (turn id, start, end): a whole message has no offsets


@dataclass(frozen=True)
class Line:
    piece: Piece
    speaker: str | None  # None: the context's text did not say (an unparsed body)
    body: list[str]  # the quoted text, its first line from the opening quote on
    ids: tuple[str, ...] = ()  # several: an unparsed body holding these turns


def escape(text: str) -> str:
    """``text`` with look-alikes of the block's delimiters defused and kept on its line (see
    :mod:`anchormem.render.fence`)."""
    return flat(text)


def turn_lines(hit: ContextHit) -> list[tuple[str, str]]:
    """The context's pieces as (turn id, text) pairs, read from its rendered text.

    One line per piece when the lines match the turn ids one to one; otherwise lines are grouped at
    each ``Speaker said, "`` start; if that does not give one group per piece either, the whole body
    is one entry under the context's turn ids joined by commas."""
    context = hit.context
    lines = context.text.strip().split("\n")  # the renderer's breaks; another separator stays in its line
    body = lines[1:] if lines and lines[0].startswith("DATE:") else lines
    ids = list(context.turn_ids)
    if len(body) == len(ids):
        return list(zip(ids, body, strict=True))
    groups: list[list[str]] = []
    for line in body:
        if TURN_START.match(line) or not groups:
            groups.append([line])
        else:
            groups[-1].append(line)
    if len(groups) == len(ids):
        return [(tid, "\n".join(group)) for tid, group in zip(ids, groups, strict=True)]
    return [(",".join(ids), "\n".join(body))] if ids else []


def parse_lines(hit: ContextHit) -> list[Line]:
    pieces = hit.context.pieces()
    pairs = turn_lines(hit)
    if len(pairs) != len(pieces):  # an unparsed body: one entry for all its turns
        tid, text = pairs[0]
        return [Line((tid, None, None), None, text.split("\n"), tuple(hit.context.turn_ids))]
    out: list[Line] = []
    speaker: str | None = None
    for piece, (_, text) in zip(pieces, pairs, strict=True):
        first, *rest = text.split("\n")
        start = TURN_START.match(first)
        if start is not None:
            speaker, first = start["speaker"], first[start.end() - 1 :]
        elif not first.startswith(CONTINUED):
            speaker = None
        else:
            first = first[len(CONTINUED) - 1 :]
        out.append(Line(piece, speaker, [first, *rest]))
    return out


def excerpt_line(line: Line, anchors: list[str], query: str, worded: Sequence[str] = ()) -> Line:
    """``line`` shown by the sentences that hold the anchors, or that say what an LLM's ``worded`` facts say
    (:func:`anchormem.render.excerpt.choose`); a short message stays whole."""
    text = "\n".join(line.body)
    if len(text) <= EXCERPT_ABOVE or not (text.startswith('"') and text.endswith('"')):
        return line
    shown = excerpt(text[1:-1].strip(CUT), anchors, query, worded)
    if shown is None:
        return line
    return replace(line, body=[f'"{shown}"'])
