"""A question about a speaker, put in that speaker's own words.

Verbatim anchors (the offline extractor's) are the speaker's sentences as said: "user: I'm hooked on
espresso again", "Caroline: I passed the test". A question names the speaker in the third person ("Does
the user drink coffee?", "Is Caroline still a counselor?"). Compared by meaning, the speaker's name in
the question matches the name every one of that speaker's anchors starts with, and it weighs most in the
shortest ones: "user: Also, I've been seeing someone new." comes closer to "Where is the user living?"
than "user: I picked up the keys to a one-bed flat in Utrecht". Asked in the first person ("Where am I
living?"), the question meets the speaker's statements on what they say.

:func:`named_speaker` finds the one speaker a question names; :func:`in_voice` rewrites the question in
that speaker's first person; :func:`anchor_speaker` reads who said a verbatim anchor. The rule for
questions about before a change (:mod:`anchormem.search.rerank.earlier`) ranks the named speaker's statements
by the question in their voice. (The present-tense recency rule does not: measured, it gained nothing.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from anchormem.render.lines import TURN_START

_AGREEMENT = (
    (re.compile(r"\b(does|do)\s+I\b", re.IGNORECASE), "do I"),
    (re.compile(r"\b(is|are)\s+I\b", re.IGNORECASE), "am I"),
    (re.compile(r"\b(has)\s+I\b", re.IGNORECASE), "have I"),
    (re.compile(r"\bI\s+(is)\b"), "I am"),
    (re.compile(r"\bI\s+(has)\b"), "I have"),
    (re.compile(r"\bI\s+(does)\b"), "I do"),
)
_SPEAKER_PREFIX = re.compile(r"^([^:\n]{1,60}):\s")


def anchor_speaker(anchor: str) -> str | None:
    """The speaker a verbatim anchor starts with ("user: I moved." -> "user"), else None."""
    found = _SPEAKER_PREFIX.match(anchor)
    return found.group(1).strip() if found else None


def _mention(speaker: str) -> re.Pattern[str]:
    """A mention of ``speaker``: the name as stored, or the first word of a name of several words that starts
    with a capital ("Javier" for ``Javier Ortega``: a question calls a person by the given name)."""
    full = speaker.strip()
    forms = [re.escape(full)]
    first = full.split()[0] if " " in full else ""
    if len(first) > 1 and first[0].isupper() and first.isalpha():
        forms.append(re.escape(first))
    names = "|".join(forms)
    return re.compile(rf"\b(?:the\s+)?(?:{names})(?P<own>'s|’s|s')?(?=\W|$)", re.IGNORECASE)


def mention_at(query: str, speaker: str) -> int | None:
    """Where ``query`` first names ``speaker`` (as :func:`named_speaker` reads names), else None."""
    found = _mention(speaker).search(query) if speaker.strip() else None
    return found.start() if found else None


def named_speaker(query: str, speakers: Iterable[str]) -> str | None:
    """The one speaker of ``speakers`` that ``query`` names (case-insensitive, as a whole word:
    "the user" names ``user``; "Javier" names ``Javier Ortega``), or None when it names none or several."""
    named = {s for s in speakers if s.strip() and _mention(s).search(query)}
    return named.pop() if len(named) == 1 else None


def in_voice(query: str, speaker: str) -> str:
    """``query`` with ``speaker`` in the first person: "the user's" and "Caroline's" become "my", "the
    user" and "Caroline" become "I" (verbs agreeing: "Does the user drink…?" -> "Do I drink…?")."""

    def pronoun(found: re.Match[str]) -> str:
        return "my" if found.group("own") else "I"

    text = _mention(speaker).sub(pronoun, query)
    for pattern, replacement in _AGREEMENT:
        text = pattern.sub(replacement, text)
    return text[:1].upper() + text[1:]


def context_speakers(text: str) -> frozenset[str]:
    """The speakers of a context, read from its rendered lines (:data:`anchormem.render.lines.TURN_START`:
    ``Speaker said, "…"``, ``Speaker said (part 2 of 3), "…"``). A line inside a quoted message that looks like
    one may add a name; the speakers of the context's own turns are always there."""
    starts = (TURN_START.match(line) for line in text.split("\n"))
    return frozenset(found.group("speaker").strip() for found in starts if found)
