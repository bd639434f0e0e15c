"""Is an LLM-extracted fact supported by the context it came from?

A fact is a search key into the user's memory: one the context does not hold ("Anna adopted a puppy
named Max", copied from the prompt's example into an excerpt about something else) misleads every later
search. The rule, checked word by word against the context's text (its DATE line, speakers, messages
and photo captions):

1. **Names** — every capitalised word that is not a sentence's function word (``The``, ``She``), a
   month or a weekday must occur in the context (case-insensitive, or with the same stem). Pronouns
   the LLM resolved to a speaker are fine: speakers are named on every line.
2. **Numbers** — every number (``2``, ``42km``, ``7th``) must occur in the context, as digits or as
   a word (``two``); a day of the month (1–31) or a year within 10 of the DATE line's year is allowed
   when the context has a DATE line (the prompt asks to turn "yesterday" or "last year" into dates).
3. **Content words** — of the fact's other words (no stop words, three letters or more), at least
   :data:`MIN_SHARE` must occur in the context, compared by Snowball stem; a fact of one or two
   content words passes with one of them found, or with a name of rule 1 found.

The rule is lexical and English-first: the stop list and stemmer are English; names and numbers work
for any language written with capitals and digits. Measured on 6,953 facts Qwen2.5-7B extracted from
LoCoMo (``bench/grounding.py``, figures in BENCHMARKS.md): it keeps the facts of their own passages and
refuses the prompt's example facts and facts moved to another conversation's passages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anchormem._util.words import (  # noqa: F401  (word_keys is part of the rule)
    MONTHS,
    NUMBER_WORDS,
    OPENERS,
    STOPWORDS,
    WEEKDAYS,
    word_keys,
)
from anchormem._util.words import (
    NUMBER_RE as _NUMBER,
)
from anchormem._util.words import (
    WORD_RE as _WORD,
)
from anchormem._util.words import (
    stem as _stem,
)
from anchormem._util.words import (
    words as _words,
)

MIN_SHARE = 0.15
"""The least share of a fact's content words its context must hold (rule 3)."""

YEARS_AROUND = 10
"""How far from the DATE line's year a year may lie without occurring in the context (rule 2)."""

_DATE_LINE = re.compile(r"^DATE:.*$", re.MULTILINE)


@dataclass(frozen=True)
class Grounding:
    """The verdict on one fact: ``grounded``, and what the context lacked (names, numbers, words)."""

    grounded: bool
    missing_names: tuple[str, ...] = ()
    missing_numbers: tuple[str, ...] = ()
    content_share: float = 1.0  # share of the fact's content words the context holds

    @property
    def reason(self) -> str:
        if self.grounded:
            return "grounded"
        parts = []
        if self.missing_names:
            parts.append("names not in the context: " + ", ".join(self.missing_names))
        if self.missing_numbers:
            parts.append("numbers not in the context: " + ", ".join(self.missing_numbers))
        if not parts:
            parts.append(f"only {self.content_share:.0%} of its words are in the context")
        return "; ".join(parts)


class ContextWords:
    """The words of one context, read once for all of its facts."""

    def __init__(self, text: str) -> None:
        words = _words(text)
        lower = [w.lower() for w in words]
        self.words = frozenset(lower)
        self.stems = frozenset(_stem(w) for w in lower)
        numbers = {n.lstrip("0") or "0" for n in _NUMBER.findall(text)}
        numbers |= {NUMBER_WORDS[w] for w in lower if w in NUMBER_WORDS}
        self.numbers = frozenset(numbers)
        years = [int(y) for line in _DATE_LINE.findall(text) for y in re.findall(r"\b(\d{4})\b", line)]
        self.dated = bool(_DATE_LINE.search(text))
        self.years = (
            frozenset(range(min(years) - YEARS_AROUND, max(years) + YEARS_AROUND + 1)) if years else frozenset()
        )

    def holds(self, word: str) -> bool:
        lower = word.lower()
        return lower in self.words or _stem(lower) in self.stems

    def holds_number(self, digits: str) -> bool:
        n = digits.lstrip("0") or "0"
        if n in self.numbers:
            return True
        value = int(n) if len(n) < 7 else -1
        return self.dated and (1 <= value <= 31 or value in self.years)


def check(fact: str, context: str | ContextWords) -> Grounding:
    """Whether ``fact`` is supported by ``context`` under the rule of this module."""
    ctx = context if isinstance(context, ContextWords) else ContextWords(context)
    missing_names: list[str] = []
    missing_numbers: list[str] = []
    found_names = 0
    content: list[str] = []
    for word, starts_sentence in _fact_words(fact):
        lower = word.lower()
        digits = _NUMBER.findall(word)
        if digits:
            missing_numbers += [d for d in digits if not ctx.holds_number(d)]
        elif lower in NUMBER_WORDS:
            if not (ctx.holds_number(NUMBER_WORDS[lower]) or ctx.holds(word)):
                missing_numbers.append(word)
        elif lower in MONTHS or lower in WEEKDAYS:
            if not (ctx.dated or ctx.holds(word)):
                missing_names.append(word)
        elif lower in STOPWORDS:
            continue
        elif word[0].isupper() and not (starts_sentence and lower in OPENERS):
            if ctx.holds(word):
                found_names += 1
            else:
                missing_names.append(word)
        elif len(lower) >= 3:
            content.append(lower)
    held = sum(ctx.holds(w) for w in content)
    share = held / len(content) if content else 1.0
    enough = share >= MIN_SHARE or (len(content) <= 2 and bool(held or found_names))
    grounded = not missing_names and not missing_numbers and enough
    return Grounding(grounded, tuple(dict.fromkeys(missing_names)), tuple(dict.fromkeys(missing_numbers)), share)


def _fact_words(fact: str) -> list[tuple[str, bool]]:
    """The fact's words, each with whether it opens a sentence (where a capital says nothing)."""
    out: list[tuple[str, bool]] = []
    previous_end = 0
    for m in _WORD.finditer(fact.replace("’", "'")):
        word = m.group(0)
        if word.lower().endswith("'s"):
            word = word[:-2]
        gap = fact[previous_end : m.start()]
        out.append((word, not out or any(c in gap for c in '.!?:;"')))
        previous_end = m.end()
    return out


UNGROUNDED = ("drop", "keep")
"""What extraction does with a fact that fails the rule: ``drop`` it (the default), or ``keep`` it; either
way it is counted (``IngestReport.facts_ungrounded``, ``Stats.ungrounded_facts``)."""


def ground(texts: list[str], context: str, mode: str = "drop") -> tuple[list[str], int]:
    """The facts to store of those an LLM extracted from ``context``, and how many failed the rule."""
    words = ContextWords(context)
    bad = [t for t in texts if not check(t, words).grounded]
    if mode == "keep" or not bad:
        return texts, len(bad)
    return [t for t in texts if t not in bad], len(bad)
