"""The layout of a long message: the headings and lead-ins that say what follows ("**An idea for sharing the
load**", "### Next steps", "Here's what I'd do:"), and the list items that say it ("- One fixed weekend a
month", "2. Book the van"). A heading holds no fact of its own; the items under it do, so an excerpt that keeps
a heading keeps the items under it (:mod:`anchormem.render.excerpt`)."""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(?:#{1,6}\s+\S.*|\*\*[^*\n]+\*\*:?|__[^_\n]+__:?|[^\n]*\S:)$")
_ITEM = re.compile(r"^(?:[-*•·]|\d{1,2}[.)])\s+\S")


def is_heading(line: str) -> bool:
    """Whether ``line`` is a heading or a lead-in: a Markdown heading, a line wholly in bold, or one that ends
    with a colon."""
    return _HEADING.match(line.strip()) is not None


def announces(line: str) -> bool:
    """Whether ``line`` is a lead-in that ends with a colon ("…offered a date for your operation as follows:"):
    what it announces is the line after it, a list item or not."""
    return line.rstrip().endswith(":") and is_heading(line)


def is_item(line: str) -> bool:
    """Whether ``line`` is a list item: a bullet ("- ", "* ", "• ") or a number ("1. ", "2) ") and its text."""
    return _ITEM.match(line.strip()) is not None
