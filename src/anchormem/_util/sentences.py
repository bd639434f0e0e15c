"""Where a full stop ends a sentence, shared by the offline anchors and the block's excerpts.

A splitter that cuts at every "." followed by a space cuts German dates in two: "Halbmarathon Hamburg am 29. Juni"
gives an anchor that ends "am 29." and one that starts "Juni", so neither holds the date and an excerpt never shows
it whole. German, the Scandinavian languages, Finnish, Czech, Polish and Hungarian write a day's ordinal with a
full stop; a one- or two-digit number with a full stop before a month's name is such a date, not a sentence's end.
Titles and short abbreviations ("Dr. Weber", "Sr. Armando", "ca. 30 Minuten") leave the sentence open too.
A cut at a line break always stays.
"""

from __future__ import annotations

import re

# Months in the languages that write "29. Juni" (the English names too: "17. May" is the same date).
_MONTH_NAMES = """
    januar jänner februar märz maerz april mai juni juli august september oktober november dezember
    january february march may june july october december
    marts maj oktober mars juni juli augusti
    tammikuuta helmikuuta maaliskuuta huhtikuuta toukokuuta kesäkuuta heinäkuuta elokuuta syyskuuta lokakuuta
    marraskuuta joulukuuta
    ledna února března dubna května června července srpna září října listopadu prosince
    stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
"""
_MONTHS = frozenset(_MONTH_NAMES.split())
# Abbreviations written before what they qualify: a title before a name, "ca." before a number.
_ABBREVIATIONS = """
    mr mrs ms dr drs prof st jr sr sra srta dra dña hr fr nr dott sig avv ing dhr mevr mme mlle
    ca bzw vgl approx
"""
_BEFORE = frozenset(_ABBREVIATIONS.split())
_ORDINAL = re.compile(r"(?<![\d.,])\b\d{1,2}\.\Z")
_ABBREVIATION = re.compile(r"(?:^|(?<=[\s(\"'„“]))([^\W\d_]+)\.\Z")
_NEXT_WORD = re.compile(r"[^\W\d_]+|\d")


def continues(text: str, stop: int, after: int) -> bool:
    """Whether the full stop just before ``stop`` in ``text`` leaves its sentence open into the text from ``after``:
    a day's ordinal before a month ("am 29. Juni"), or a title or abbreviation before a name or number."""
    if stop < 2 or text[stop - 1] != ".":
        return False
    following = _NEXT_WORD.match(text, after)
    if following is None:
        return False
    lo = max(0, stop - 12)
    if _ORDINAL.search(text, lo, stop):
        return following.group().casefold() in _MONTHS
    found = _ABBREVIATION.search(text, lo, stop)
    return found is not None and found.group(1).casefold() in _BEFORE


def cut(text: str, boundary: re.Pattern[str]) -> list[str]:
    """``text`` cut at each match of ``boundary``, except a match without a line break after a full stop that
    leaves its sentence open (:func:`continues`)."""
    pieces: list[str] = []
    start = 0
    for found in boundary.finditer(text):
        if "\n" not in found.group() and continues(text, found.start(), found.end()):
            continue
        pieces.append(text[start : found.start()])
        start = found.end()
    pieces.append(text[start:])
    return pieces
