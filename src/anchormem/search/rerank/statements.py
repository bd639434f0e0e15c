"""The ``statements`` stage: what the user said of themselves before what they asked for.

A user of an assistant states facts ("I'm pescatarian now") and asks for things ("Can you plan a dinner
menu that fits my diet?"). Asked "What's my diet?", the request shares the question's words and often
ranks first, though it states nothing: the answer is in the statement. For a question about the user
(:func:`anchormem.search.rerank.own_words.speaking`: "the user", the user's name, or "I"/"my"; the user's speaker
beside an assistant, :func:`anchormem.text.person.user_speaker`), a candidate context in which the user
only asks (every one of their verbatim anchors there is a question or a request:
:func:`is_request`) gives way by the rerank bound, unless the question itself is about what was asked
("What did I ask you to plan?"). A message that asks and states ("Can you plan a menu? I'm pescatarian
now.") holds a statement and is left alone. Only verbatim (offline) anchors are read: an LLM's facts are
statements already.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import ClassVar

from anchormem.search.rerank.own_words import speaking
from anchormem.search.rerank.stage import Candidates
from anchormem.text.person import user_speaker
from anchormem.text.voice import anchor_speaker

_ASKS = re.compile(
    r"^\s*(?:(?:can|could|would|will)\s+you|please|help|plan|write|draft|make|give|suggest|recommend|create|"
    r"show|find|list|explain|translate|check|fix|tell|let'?s|puedes|podrías|kannst|könntest|bitte)\b",
    re.IGNORECASE,
)
_ABOUT_ASKING = re.compile(
    r"\b(?:ask(?:ed)?|request(?:ed)?|want(?:ed)?\s+(?:you|help)|help\s+with|pedí|gebeten)\b", re.IGNORECASE
)


def is_request(sentence: str) -> bool:
    """Whether a sentence asks rather than states: a question, or a request ("Can you…", "Plan me…")."""
    text = sentence.strip()
    return text.endswith("?") or _ASKS.match(text) is not None


class StatementsFirst:
    """The ``statements`` stage (module docstring)."""

    name: ClassVar[str] = "statements"
    languages: ClassVar[tuple[str, ...]] = ("*",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        if _ABOUT_ASKING.search(candidates.query):
            return {}
        snapshot = candidates.snapshot
        speaker = speaking(candidates, candidates.rows)
        if speaker is None or speaker != user_speaker(snapshot.speakers):
            return {}
        asking: dict[int, float] = {}
        for row in candidates.rows:
            said = [
                snapshot.facts[f].text
                for f in snapshot.context_facts[row]
                if snapshot.facts[f].source == "offline" and anchor_speaker(snapshot.facts[f].text) == speaker
            ]
            if said and all(is_request(text.split(":", 1)[1]) for text in said):
                asking[row] = -candidates.bound
        if asking:
            candidates.notes[self.name] = f"{speaker} only asks in these: their statements come first"
        return asking
