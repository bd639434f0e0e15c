"""Whether a question asks when, and whether a sentence says a date, in the languages read here.

"When did the user start at Ember & Vine?" is answered by "I start Monday 6 October.", a sentence that shares
no word with the question: an excerpt of a long message (:mod:`anchormem.render.excerpt`) keeps the sentences
of its anchors and the one that shares most words with the question, and so may leave the date out. A
question that asks when (:func:`asks_when`: "when", "what date", "cuándo", "quand", "wann", "wanneer"…) wants
the sentence that says a date (:func:`says_date`: a day with a month's name, a month with a year, a numeric date
such as "01.08.2022" or "2025-06-14", in English, Spanish, Portuguese, Italian, French, German or Dutch).
"""

from __future__ import annotations

import re

_MONTHS = (
    "january february march april may june july august september october november december "  # English
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre "  # Spanish
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro "  # Portuguese
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre "  # Italian
    "janvier février fevrier mars avril mai juin juillet août aout septembre octobre novembre décembre "  # French
    "januar jänner februar märz maerz april mai juni juli august september oktober november dezember "  # German
    "januari februari maart april mei juni juli augustus september oktober november december"  # Dutch
)
_MONTH = "(?:" + "|".join(sorted(set(_MONTHS.split()), key=len, reverse=True)) + r")\.?"
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th|er|º|°|\.)?\s+(?:de\s+|of\s+)?{_MONTH}(?![\w])"  # 6 October, 14 de junio, 7. März
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"  # October 6th
    rf"|\b{_MONTH}\s+(?:de\s+|of\s+)?(?:19|20)\d\d\b"  # March 2025, marzo de 2025
    r"|\b\d{1,2}[./]\d{1,2}[./](?:19|20)?\d\d\b"  # 01.08.2022, 14/06/2025
    r"|\b(?:19|20)\d\d-\d{1,2}-\d{1,2}\b",  # 2025-06-14
    re.IGNORECASE,
)
_WHEN = re.compile(
    r"(?<![\w'’])(?:when|what\s+date|which\s+date|what\s+day|which\s+day|since\s+when"
    r"|cu[aá]ndo|qu[eé]\s+(?:fecha|d[ií]a)|desde\s+cu[aá]ndo"
    r"|quando|que\s+(?:data|dia)|em\s+que\s+(?:data|dia)|desde\s+quando"
    r"|che\s+(?:data|giorno)|quale\s+(?:data|giorno)|da\s+quando"
    r"|quand|quelle\s+date|quel\s+jour|depuis\s+quand"
    r"|wann|seit\s+wann|welche[mns]?\s+(?:datum|tag)|an\s+welchem\s+tag"
    r"|wanneer|welke\s+(?:datum|dag)|sinds\s+wanneer)(?![\w'’])",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """Whether ``question`` asks when something happened or happens (a date, a day)."""
    return _WHEN.search(question) is not None


def says_date(sentence: str) -> bool:
    """Whether ``sentence`` names a date: a day and a month, a month and a year, or a numeric date."""
    return _DATE.search(sentence) is not None
