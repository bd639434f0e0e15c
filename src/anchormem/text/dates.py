"""Reading the dates that conversations carry, to compare statements in time.

Timestamps are stored exactly as given ("1:56 pm on 8 May, 2023", "2024-03-23T09:30:00Z",
"29.12.2023, 22:42:04", "March 23, 2024"); :func:`parse_when` turns the common spellings into a
naive :class:`datetime` (a time-zone offset is ignored) and gives up (None) on anything else;
:func:`locomo_date` writes a time in LoCoMo's spelling.
"""

from __future__ import annotations

import re
from datetime import datetime

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        1,
    )
    for name in names
}
_MONTH = r"(?P<month>[A-Za-z]{3,9})\.?"
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})(?:[T ](?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2}))?)?")
_DOTTED = re.compile(r"\b(?P<d>\d{1,2})[./](?P<m>\d{1,2})[./](?P<y>\d{4})\b")
_SLASHED_YMD = re.compile(r"\b(?P<y>\d{4})/(?P<m>\d{1,2})/(?P<d>\d{1,2})\b")
_DAY_MONTH = re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<y>\d{{4}})\b")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})\b")
_CLOCK = re.compile(r"\b(?P<H>\d{1,2})[:.](?P<M>\d{2})(?::(?P<S>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)?", re.IGNORECASE)


def parse_when(text: str | None) -> datetime | None:
    """The date (and time of day, when given) in ``text``, or None if no known spelling matches."""
    if not text:
        return None
    iso = _ISO.search(text)
    if iso:
        day = _make(iso["y"], iso["m"], iso["d"])
        if day is not None and iso["H"] is not None:
            day = _at(day, int(iso["H"]), int(iso["M"]), int(iso["S"] or 0))
        return day
    day = None
    rest = text
    for pattern in (_DOTTED, _SLASHED_YMD):
        found = pattern.search(text)
        if found:
            day = _make(found["y"], found["m"], found["d"])
            rest = text[: found.start()] + " " + text[found.end() :]
            break
    if day is None:
        for pattern in (_DAY_MONTH, _MONTH_DAY):
            found = pattern.search(text)
            month = _MONTHS.get(found["month"].lower()) if found else None
            if found and month:
                day = _make(found["y"], str(month), found["d"])
                rest = text[: found.start()] + " " + text[found.end() :]
                break
    if day is None:
        return None
    clock = _CLOCK.search(rest)
    if clock:
        hour = int(clock["H"])
        ampm = (clock["ampm"] or "").lower().replace(".", "")
        if ampm == "pm" and hour < 12:
            hour += 12
        elif ampm == "am" and hour == 12:
            hour = 0
        day = _at(day, hour, int(clock["M"]), int(clock["S"] or 0))
    return day


def _make(year: str, month: str, day: str) -> datetime | None:
    try:
        return datetime(int(year), int(month), int(day))
    except ValueError:
        return None


def _at(day: datetime, hour: int, minute: int, second: int) -> datetime:
    try:
        return day.replace(hour=hour, minute=minute, second=second)
    except ValueError:
        return day


MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def locomo_date(when: datetime) -> str:
    """LoCoMo's spelling of a session time: ``1:56 pm on 8 May, 2023``."""
    hour = when.hour % 12 or 12
    half = "am" if when.hour < 12 else "pm"
    return f"{hour}:{when.minute:02d} {half} on {when.day} {MONTH_NAMES[when.month - 1]}, {when.year}"
