"""What a search returns: contexts and events with their provenance, and an answer with its citations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from anchormem.errors import InputError
from anchormem.model.records import Context, Event, Fact, Scope
from anchormem.model.trace import Trace
from anchormem.render.prompt_block import PromptBlock, render_block


@dataclass(frozen=True)
class FactHit:
    fact: Fact
    score: float


@dataclass(frozen=True)
class ContextHit:
    """A retrieved context with the anchors that led to it (provenance).

    ``rank`` is its place in the result, 1 = best: the order the selection took the contexts in (the default
    recipe's maximal marginal relevance, so a repeat of a better context may score higher and rank lower; the
    other recipes by ``score``). ``relevance`` is the context's own
    evidence (anchors and lexical match, fused, in [0, 1]); ``adjustments`` are the (stage, value) pairs
    that rerank stages applied (each within ``RetrievalSettings.rerank_bound``), and ``score`` is
    ``relevance`` plus their sum, clipped to [0, 1] (:mod:`anchormem.search.rerank.stage`). ``latest`` compares
    it by date with the returned contexts on the same subject (their anchors near each other or linked by
    an event, :mod:`anchormem.search.rerank.subject`): True when none of them is later, False when a later one was
    returned (its ids are in ``newer``), None when no returned context is on its subject.
    ``scope`` is the stored scope the context comes from: a search of a user covers the user's agent
    and run scopes, and turn ids repeat across scopes, so a turn is named by its id and this scope.
    """

    context: Context
    score: float
    anchors: tuple[FactHit, ...] = ()
    via_events: tuple[str, ...] = ()  # ids of events whose source facts lead here
    rank: int = 0
    latest: bool | None = None
    newer: tuple[str, ...] = ()  # ids of returned contexts on the same subject, dated later
    scope: Scope | None = None  # the memory (user / agent / run) the context is stored in
    relevance: float | None = None  # None: as ``score`` (a hit built by hand)
    adjustments: tuple[tuple[str, float], ...] = ()  # (rerank stage, adjustment), in the order applied


@dataclass(frozen=True)
class EventHit:
    event: Event
    score: float
    context_ids: tuple[str, ...] = ()
    facts: tuple[Fact, ...] = ()
    sessions: tuple[str, ...] = ()  # the sessions of its source contexts, in their order


@dataclass(frozen=True)
class SearchResult:
    """M_final = contexts ∪ events, with provenance.

    ``contexts`` are best first (``rank`` 1, 2, …; ``score`` never rises along the tuple); events are
    best first too. ``reading_order`` lists the indexes into ``contexts`` in conversation order
    (session, then position in it): :meth:`in_reading_order` applies it.
    """

    query: str
    contexts: tuple[ContextHit, ...]
    events: tuple[EventHit, ...]
    reading_order: tuple[int, ...] = ()
    trace: Trace | None = field(default=None, compare=False, repr=False)  # ``search(..., trace=True)``

    def in_reading_order(self) -> tuple[ContextHit, ...]:
        """The contexts in conversation order (the order a transcript would show them)."""
        if sorted(self.reading_order) != list(range(len(self.contexts))):
            return self.contexts
        return tuple(self.contexts[i] for i in self.reading_order)

    @property
    def turn_ids(self) -> list[str]:
        """Turn ids of the retrieved contexts, in reading order, without repeats."""
        seen: dict[str, None] = {}
        for hit in self.in_reading_order():
            for tid in hit.context.turn_ids:
                seen.setdefault(tid, None)
        return list(seen)

    def prompt(self, max_chars: int | None = None, names: Mapping[str, str] | None = None) -> PromptBlock:
        """These memories as one prompt-ready block within ``max_chars``, with the ids of the turns it
        actually shows (``.text``, ``.turn_ids``, ``.labels``; see :mod:`anchormem.render.prompt_block`).
        ``names`` renames speakers, e.g. ``{"user": "Maya"}`` (a role without a name shows as ``User``).
        ``max_chars`` that is not a whole number of 0 or more (0: an empty block), or ``names`` that is
        not a mapping of strings, raises :class:`~anchormem.errors.InputError`."""
        if max_chars is not None and (not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 0):
            raise InputError(f"prompt: 'max_chars' must be a whole number of 0 or more, got {max_chars!r:.40}")
        if names is not None and (
            not isinstance(names, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in names.items())
        ):
            raise InputError("prompt: 'names' must map speaker names to display names (strings)")
        return render_block(self, max_chars=max_chars, names=names)

    def as_prompt(self, max_chars: int | None = None, names: Mapping[str, str] | None = None) -> str:
        """The text of :meth:`prompt`."""
        return self.prompt(max_chars, names).text


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    cited_turn_ids: tuple[str, ...]
    memories: SearchResult
    model: str | None = None
    # where the cited ids come from: "reader" (it cited them), "matched" (mapped back from the answer's
    # words, the reader cited none it was shown) or "none" (no shown turn holds the answer's words)
    citation: str = "reader"
