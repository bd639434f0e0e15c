"""A message's time: read from what callers send, shown to readers in one human form.

Messages carry their time as ISO 8601 text (``2024-05-29T14:13:20Z``), Unix seconds or milliseconds
(numbers, or digit strings), or free text (``1:56 pm on 8 May, 2023``, ``29.12.2023, 22:42:04``).
:func:`message_time` gives the form readers see (``2:13 pm on 29 May, 2024 UTC``; the spelling
LoCoMo uses, which :func:`anchormem.text.dates.parse_when` reads back) and the original text, which
is kept. Free text is shown as given. :func:`instant` is the moment a stored message's time names,
for time-range filters.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from anchormem.errors import InputError
from anchormem.text.dates import parse_when
from anchormem.wire.validation import check_label

_DIGITS = re.compile(r"^-?\d+(\.\d+)?$")
_ISO_START = re.compile(r"^\d{4}-\d{2}-\d{2}")
_ISO_FIELDS = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?")
_EXPANDED_YEAR = re.compile(r"^[+-]\d{4,}-\d{2}-\d{2}")  # ISO 8601's expanded years: +275760-09-13
MS_FROM = 100_000_000_000  # a Unix time at or above this is in milliseconds (year 5138 in seconds)
_LATEST = 253_402_300_799  # 9999-12-31T23:59:59Z


def message_time(value: object, field: str = "timestamp", place: str = "message") -> tuple[str | None, str | None]:
    """``(shown, given)`` for a message's time field: the human form and the original as text.

    None or "" give ``(None, None)``. A number, or a string of digits, is Unix time (seconds, or
    milliseconds from 1e11 on), shown in UTC. ISO 8601 is shown in its own zone's clock, with ``UTC``
    when it says so; other offsets are turned into UTC. Anything else is kept and shown as given.
    """
    if value is None or value == "":
        return None, None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{place}: '{field}' must be a string or a number, got {type(value).__name__}")
    given = check_label(str(value), field, place)
    moment = _parse_exact(value, field, place)
    if moment is None:
        return given, given
    return human(moment), given


def instant(shown: str | None, given: str | None = None) -> datetime | None:
    """The moment a stored message's time names (naive; aware times in UTC), or None if unknown."""
    if given:
        try:
            moment = _parse_exact(given, "time", "time")
        except InputError:
            moment = None
        if moment is not None:
            return _naive(moment)
    return parse_when(shown)


def bound(value: object, field: str) -> datetime:
    """A ``since``/``until`` filter bound: ISO 8601, Unix seconds/ms, or a date spelling we read."""
    if isinstance(value, datetime):
        return _naive(value)
    shown, given = message_time(value, field, "filter")
    moment = instant(shown, given)
    if moment is None:
        raise InputError(
            f"'{field}' must be an ISO 8601 date or time (2024-05-29, 2024-05-29T14:13:20Z) or Unix seconds; "
            f"got {value!r}"
        )
    return moment


def human(moment: datetime) -> str:
    """``2:13 pm on 29 May, 2024`` (+ `` UTC`` for an aware time); a midnight date alone is the date."""
    moment = moment.astimezone(UTC) if moment.tzinfo is not None else moment
    zone = " UTC" if moment.tzinfo is not None else ""
    day = f"{moment.day} {moment.strftime('%B')}, {moment.year}"
    if (moment.hour, moment.minute, moment.second) == (0, 0, 0) and moment.microsecond == 0 and not zone:
        return day
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'am' if moment.hour < 12 else 'pm'} on {day}{zone}"


def _parse_exact(value: object, field: str, place: str) -> datetime | None:
    """A Unix time or ISO 8601 value as a datetime; None for other text."""
    if isinstance(value, (int, float)) or (isinstance(value, str) and _DIGITS.match(value.strip())):
        number = float(value)
        if not math.isfinite(number):
            raise InputError(f"{place}: '{field}' is not a finite number")
        seconds = number / 1000 if abs(number) >= MS_FROM else number
        if not 0 <= seconds <= _LATEST:
            raise InputError(f"{place}: '{field}' {value!r} is not a Unix time between 1970 and 9999")
        return datetime.fromtimestamp(seconds, tz=UTC)
    text = str(value).strip()
    if _EXPANDED_YEAR.match(text):
        raise InputError(f"{place}: '{field}' {_short(text)} is not a date between the years 1 and 9999")
    if not _ISO_START.match(text):
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        _check_fields(text, field, place)
        return None  # a valid date followed by other words ("2023-05-08 13:56 UTC"): free text


def _check_fields(text: str, field: str, place: str) -> None:
    """An :class:`InputError` when the date (and time) ``text`` starts with does not exist:
    ``2024-01-01T25:00``, ``2024-02-30``."""
    found = _ISO_FIELDS.match(text)
    if found is None:
        return
    year, month, day, hour, minute, second = (int(p) if p is not None else 0 for p in found.groups())
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError as exc:
        raise InputError(f"{place}: '{field}' {_short(text)} is not a valid date or time ({exc})") from None


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo is not None else moment
