"""The stored records: a scope, its turns, the contexts cut from them, the facts found in them (search
keys) and the events that tie facts across sessions, and the history of changes. Records are immutable
(frozen dataclasses); ids are derived from content so that re-adding the same turns creates nothing new."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

FactSource = Literal["llm", "pack", "offline", "provisional"]
"""Where a fact comes from; ``provisional``: an offline anchor that keeps a context searchable while its
LLM extraction waits for a batch answer (replaced by the answer's facts)."""
VERBATIM_SOURCES: tuple[str, ...] = ("offline", "provisional")  # facts that are a speaker's own words, "user: …"
EventSource = Literal["llm", "pack", "extractive"]
ChangeKind = Literal["change", "correction"]
Supersession = tuple[str, str, str]
"""``(newer fact id, older fact id, kind)``: the newer statement supersedes the older one; ``kind`` is
``"change"`` (the subject changed: "moved to Carabanchel") or ``"correction"`` ("actually it's Thursday")."""
CHANGE_KINDS: tuple[str, ...] = ("change", "correction")


def stable_id(prefix: str, *parts: str) -> str:
    """A short, stable id from the given parts (sha1, 16 hex digits)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{prefix}-{digest}"


@dataclass(frozen=True)
class Scope:
    """Whose memory a record belongs to: a user, optionally narrowed to an agent and a run. An agent's
    own memory (no user) has ``user_id`` ``""`` (see :func:`anchormem.wire.scopes.make_scope`)."""

    user_id: str
    agent_id: str | None = None
    run_id: str | None = None

    def key(self) -> str:
        return "\x1f".join([self.user_id, self.agent_id or "", self.run_id or ""])


@dataclass(frozen=True)
class Turn:
    """One message of a conversation, stored exactly as given."""

    id: str  # e.g. LoCoMo "D3:7", or a stable generated id
    session: str  # session label, e.g. "3"
    position: int  # index of the turn within its session
    speaker: str
    text: str
    timestamp: str | None = None  # the time shown to readers: a known spelling in one human form, else as given
    image_caption: str | None = None
    time_given: str | None = None  # the time exactly as the message gave it (ISO, Unix seconds/ms, free text)
    metadata: dict[str, Any] | None = field(default=None, hash=False)  # free JSON the caller attached


@dataclass(frozen=True)
class Context:
    """An immutable window of turns (paper §4.1), rendered with its DATE line.

    ``offsets`` is empty when the window holds whole messages; a window cut by length that holds a
    passage of a long message (``anchormem.ingest.chunk``) gives, aligned with ``turn_ids``, each
    piece's ``(start, end)`` character offsets in its message's text (``(0, len(text))`` for a whole
    message). A passage keeps its message's id, so deleting or updating the message removes it.
    """

    id: str
    session: str
    position: int  # index of the window within its session
    turn_ids: tuple[str, ...]
    date: str | None
    text: str
    offsets: tuple[tuple[int, int], ...] = ()

    def pieces(self) -> tuple[tuple[str, int | None, int | None], ...]:
        """``(turn id, start, end)`` per piece; ``start`` and ``end`` are None for a whole message."""
        if not self.offsets:
            return tuple((tid, None, None) for tid in self.turn_ids)
        return tuple((tid, a, b) for tid, (a, b) in zip(self.turn_ids, self.offsets, strict=True))


@dataclass(frozen=True)
class Fact:
    """An atomic statement extracted from one context; a search key (anchor)."""

    id: str
    context_id: str
    text: str
    source: FactSource = "llm"

    @property
    def verbatim(self) -> bool:
        """Whether the fact is a speaker's own words ("user: I moved."), not an LLM's (``VERBATIM_SOURCES``)."""
        return self.source in VERBATIM_SOURCES


@dataclass(frozen=True)
class Event:
    """A narrative integrated from a cluster of facts of several contexts (paper §4.2).

    ``supersedes`` are the links the integration found between its facts (:data:`Supersession`): the event
    says the change in words, and its link tells which fact holds now. The event is the link's provenance:
    deleting the newer fact deletes the event and its links, so the older fact is current again. Contexts
    are never touched."""

    id: str
    text: str
    fact_ids: tuple[str, ...]
    source: EventSource = "llm"
    supersedes: tuple[Supersession, ...] = ()


@dataclass(frozen=True)
class HistoryEntry:
    """One change of a memory, as recorded in the append-only history (never the deleted content)."""

    seq: int
    timestamp: float  # seconds since the epoch
    op: str  # "add", "update", "delete", "import"
    scope: Scope
    detail: dict[str, Any]
