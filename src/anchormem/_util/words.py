"""Content words of a text, compared by stem: the shared vocabulary of grounding a fact in its context
(``ingest.grounding``) and of mapping an answer back to the turns it uses (``query.citations``).
English-first: a stop list and the Snowball stemmer; names and numbers work in any language written with
capitals and digits."""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
NUMBER_RE = re.compile(r"\d+")

_MONTHS = """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec"""
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday"
_COUNTS = """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen twenty"""
# English function words: the stop list of BM25 (``query.lexical``) and of grounding
_FUNCTION = """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves said"""
# the reporting verbs and time words an extraction adds around what was said (grounding only)
_REPORTING = """also says say shared share shares mentioned mentions mention expressed expresses express noted notes
    stated states told tells tell talked talks talk asked asks ask felt feels feel feeling going get
    gets got getting like likes really lot lots thing things something someone one ones much many
    well day days time times recently previous previously currently later soon yesterday today
    tomorrow week weeks month months year years ago last next first second"""
_OPENERS = """after before during later earlier together both another every each since while although though
    however overall currently recently despite"""

MONTHS = frozenset(_MONTHS.split())
WEEKDAYS = frozenset(_WEEKDAYS.split())
NUMBER_WORDS = {w: str(i) for i, w in enumerate(_COUNTS.split())} | {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "thousand": "1000",
}
FUNCTION_WORDS = frozenset(_FUNCTION.split())
STOPWORDS = FUNCTION_WORDS | frozenset(_REPORTING.split())
OPENERS = frozenset(_OPENERS.split())
"""Words that open a fact's sentence without being a name (the stop words are skipped anyway)."""

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def words(text: str) -> list[str]:
    out = []
    for m in WORD_RE.finditer(text.replace("’", "'")):
        word = m.group(0)
        if word.lower().endswith("'s"):
            word = word[:-2]
        out.append(word)
    return out


def word_keys(text: str) -> set[str]:
    """The words of ``text`` that carry content, as compared here: stems of the words that are not stop
    words, and numbers as digits (number words included)."""
    keys: set[str] = set()
    for word in words(text):
        lower = word.lower()
        if lower in NUMBER_WORDS:
            keys.add(NUMBER_WORDS[lower])
        elif NUMBER_RE.fullmatch(lower):
            keys.add(lower.lstrip("0") or "0")
        elif lower not in STOPWORDS and (len(lower) >= 3 or lower.isdigit() or word[:1].isupper()):
            keys.add(stem(lower))
    return keys
