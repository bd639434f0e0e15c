"""Calendar days out of the free-text timestamps turns carry ("1:56 pm on 8 May, 2023",
"2024-03-01 10:00", "May 8, 2023"), for sorting sessions and filtering by date range."""

from __future__ import annotations

import re
from datetime import date

_MONTHS = {
    m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))
}
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_ISO = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")
_DAY_MONTH_YEAR = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(\d{4})", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", re.IGNORECASE)


def parse_day(text: str | None) -> date | None:
    """The calendar day a timestamp names, or None when it names none."""
    if not text:
        return None
    found = _ISO.search(text)
    if found:
        return _day(int(found.group(1)), int(found.group(2)), int(found.group(3)))
    found = _DAY_MONTH_YEAR.search(text)
    if found:
        return _day(int(found.group(3)), _MONTHS[found.group(2).lower()[:3]], int(found.group(1)))
    found = _MONTH_DAY_YEAR.search(text)
    if found:
        return _day(int(found.group(3)), _MONTHS[found.group(1).lower()[:3]], int(found.group(2)))
    return None


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None
