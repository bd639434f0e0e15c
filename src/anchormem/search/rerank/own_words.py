"""The ``own-words`` stage: a question about one speaker is answered first by that speaker's own messages.

A question that names one of the memory's speakers ("What is the user's job?" names ``user``, the speaker of
``role: "user"`` messages; "Where does Sam live?" names ``Sam``) asks about that person, and the place where a
person's facts are stated is their own messages. Another speaker's message can hold the same words without
being their source: an assistant's reply repeats the user's facts in many more words and sentences (a
300-word answer gives several passages, each with a dozen sentences that can match a question), and a
friend's question mentions what the other told them. So a candidate context in which the named speaker says
nothing gives way by the rerank bound to those in which they speak, when the candidates hold both.

- It moves a context by at most ``rerank_bound`` (the core clips), and only down: a context of the other
  speaker whose evidence is stronger by more than the bound stays above ("What did the assistant suggest for
  the trip?" names ``assistant``, and the assistant's passages are then the ones kept in place).
- The speaker is found by name as the memory stores it (:func:`anchormem.text.voice.named_speaker`: a whole word,
  case-insensitive, "the user" for ``user``), so it works in any language whose question spells the name; a question
  in the first person ("Where do I live?", "¿Dónde vivo?", "Wo wohne ich?") or naming nobody in a memory of a
  user and an assistant is about the user's speaker, one about "you" about the assistant's
  (:mod:`anchormem.text.person`); a question naming two people, or between two people one naming neither, leaves
  the ranking as it is. It reads who speaks from the contexts' own lines, so it needs no turn loaded.
- For such a question, the ``recency`` stage and the ``latest``/``earlier`` marks
  (:mod:`anchormem.search.rerank.recency`) compare only the named speaker's contexts (:func:`statements`): an
  assistant's later reply that mentions the user's old flat does not make the user's own words "earlier".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from anchormem.search.rerank.stage import Candidates
from anchormem.text.person import question_speaker


def speaking(candidates: Candidates, rows: Sequence[int]) -> str | None:
    """The one speaker of ``rows`` the query is about (None: none or several): the one it names, or the
    user's speaker for a question in the first person, the assistant's for one about "you"
    (:func:`anchormem.text.person.question_speaker`)."""
    names = set().union(*(candidates.speakers(row) for row in rows))
    snapshot = candidates.snapshot
    speaker = question_speaker(candidates.query, names | snapshot.speakers, snapshot.user_names)
    return speaker if speaker in names else None


def statements(candidates: Candidates, rows: Sequence[int]) -> list[int]:
    """The rows that can state the answer to the query: those in which the speaker it names speaks, or all of
    ``rows`` when it names none (or the named speaker speaks in none of them)."""
    speaker = speaking(candidates, rows)
    own = [row for row in rows if speaker is not None and speaker in candidates.speakers(row)]
    return own or list(rows)


class OwnWords:
    """The ``own-words`` stage (module docstring)."""

    name: ClassVar[str] = "own-words"
    languages: ClassVar[tuple[str, ...]] = ("*",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        speaker = speaking(candidates, candidates.rows)
        if speaker is None:
            return {}
        spoken = {row: candidates.speakers(row) for row in candidates.rows}
        others = {row: -candidates.bound for row, names in spoken.items() if names and speaker not in names}
        if others:
            candidates.notes[self.name] = f"the question names {speaker}: {speaker}'s own messages come first"
        return others
