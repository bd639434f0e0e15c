"""The layout of a long message: the headings and lead-ins that say what follows ("**An idea for sharing the
load**", "### Next steps", "Here's what I'd do:"), and the list items that say it ("- One fixed weekend a
month", "2. Book the van"). A heading holds no fact of its own; the items under it do, so an excerpt that keeps
a heading keeps the items under it, and one that keeps a lead-in or a short title ("Start date and place of work")
keeps the line after it (:mod:`anchormem.render.excerpt`)."""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(?:#{1,6}\s+\S.*|\*\*[^*\n]+\*\*:?|__[^_\n]+__:?|[^\n]*\S:)$")
_ITEM = re.compile(r"^(?:[-*•·]|\d{1,2}[.)])\s+\S")


def is_heading(line: str) -> bool:
    """Whether ``line`` is a heading or a lead-in: a Markdown heading, a line wholly in bold, or one that ends
    with a colon."""
    return _HEADING.match(line.strip()) is not None


_TITLE = re.compile(r"^(?:#{1,6}\s+|\*\*|__|§\s*\d+\w*\s+|\d{1,2}(?:\.\d{1,2})*[.)]?\s+)(?P<text>[^\n]*)$")
TITLE_WORDS = 8


def announces(line: str) -> bool:
    """Whether ``line`` says what the line after it holds: a lead-in that ends with a colon ("…offered a date
    for your operation as follows:"), or a short title with no sentence of its own and no list item ("Start date
    and place of work", "§ 1 Ausbildungszeit", "### Les options"; a numbering or heading mark is not counted
    among its words)."""
    text = line.strip()
    if text.endswith(":") and is_heading(text):
        return True
    if not text or text[-1] in ".!?…\"'”’)" or is_item(text):
        return False
    found = _TITLE.match(text)
    words = re.findall(r"\w+", found.group("text") if found else text)
    return 0 < len(words) <= TITLE_WORDS


def is_item(line: str) -> bool:
    """Whether ``line`` is a list item: a bullet ("- ", "* ", "• ") or a number ("1. ", "2) ") and its text."""
    return _ITEM.match(line.strip()) is not None
