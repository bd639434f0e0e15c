"""Plain data types that flow through the ingest and query pipelines.

Every stage reads and writes these, so a stage can be tested and swapped alone.
Records are immutable (frozen dataclasses); ids are derived from content so that
re-adding the same turns creates nothing new.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from anchormem.errors import InputError
from anchormem.render.prompt_block import PromptBlock, render_block

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
class FactHit:
    fact: Fact
    score: float


@dataclass(frozen=True)
class ContextHit:
    """A retrieved context with the anchors that led to it (provenance).

    ``rank`` is its place in the result, 1 = best (highest ``score``). ``relevance`` is the context's own
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


# -- the trace of one retrieval (``search(..., trace=True)``): what each signal gave each returned context, what
# each rerank stage moved, why each context was picked. Retrieval writes it while it scores; the inspector and
# ``query.explain`` only format it, so an explanation is always of the search that ran.


@dataclass(frozen=True)
class SignalTrace:
    """One relevance signal of one context: raw value, normalised to [0, 1], after turn spreading, and its
    weight in the fused relevance (the weighted mean of the spread values)."""

    name: str  # "anchor" (best anchor cosine, soft maximum), "lexical" (BM25), …
    weight: float
    raw: float | None  # None: no evidence of this kind (e.g. a context without anchors)
    normalised: float
    spread: float


@dataclass(frozen=True)
class ContextTrace:
    """Why one context was returned where it was."""

    context_id: str
    relevance: float
    relevance_rank: int  # 1 = the most relevant context of the memory searched
    score: float
    signals: tuple[SignalTrace, ...] = ()
    adjustments: tuple[tuple[str, float], ...] = ()  # (stage, value), each within the bound
    picked_at: int | None = None  # selection step (1 = picked first)
    redundancy: float | None = None  # best similarity of its anchor to the ones picked before (MMR)
    same_subject: tuple[str, ...] = ()  # returned context ids on its subject (query.subject)
    best_anchor: str | None = None  # the fact id that speaks for it
    reply: str | None = None  # the reply's passage whose relevance it took (``query.scoring.exchange_lift``)


@dataclass(frozen=True)
class Trace:
    """One search's trace. ``notes``: (stage, why it acted) for the stages that moved something."""

    variant: str
    mode: str
    stages: tuple[str, ...]
    bound: float
    mmr_lambda: float
    shared_turns: bool
    considered: int  # candidate contexts the stages and the selection looked at
    max_chars: int | None
    used_chars: int
    scale: float = 1.0  # scores are (relevance + adjustments) / scale (``query.rerank.final_scores``)
    contexts: tuple[ContextTrace, ...] = ()
    notes: tuple[tuple[str, str], ...] = field(default=())


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


@dataclass
class Usage:
    """Token and time accounting for one phase (paper Tables 2 and 4).

    Tokens are counted apart by where the answer came from: ``prompt_tokens`` / ``completion_tokens``
    were spent (the endpoint was called), ``cached_prompt_tokens`` / ``cached_completion_tokens`` belong
    to calls answered from the response cache (nothing was spent; ``total_prompt_tokens`` is what the
    method costs without a cache). Time too has two names: ``call_seconds`` sums every call's time, so
    calls that ran side by side count once each; ``wall_seconds`` is the time during which at least
    one call of the phase was running (what the phase added to the operation's elapsed time)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    call_seconds: float = 0.0
    cached_calls: int = 0
    failed_calls: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    wall_seconds: float = 0.0

    @property
    def total_prompt_tokens(self) -> int:
        """Prompt tokens of every call, spent or answered from the cache."""
        return self.prompt_tokens + self.cached_prompt_tokens

    @property
    def total_completion_tokens(self) -> int:
        """Completion tokens of every call, spent or answered from the cache."""
        return self.completion_tokens + self.cached_completion_tokens

    def add(self, other: Usage) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def since(self, earlier: Usage | None) -> Usage:
        """What was used after ``earlier`` (a snapshot of the same counter)."""
        if earlier is None:
            return replace(self)
        return Usage(**{f.name: getattr(self, f.name) - getattr(earlier, f.name) for f in fields(self)})


@dataclass
class IngestReport:
    """What one ``add`` did."""

    turns_added: int = 0
    contexts_added: int = 0
    facts_added: int = 0
    events_added: int = 0
    clusters_discarded: int = 0
    clusters_kept: int = 0
    extractions_failed: int = 0
    integrations_failed: int = 0
    extractions_recovered: int = 0  # contexts whose earlier extraction had failed and now succeeded
    facts_ungrounded: int = 0  # LLM-extracted facts their context did not support (anchormem.ingest.grounding)
    contexts_superseded: int = 0  # partial windows replaced because their session grew
    llm_calls: int = 0
    llm_deferred: int = 0  # LLM requests that wait for a batch answer (``anchormem.llm.batch``)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


@dataclass
class Stats:
    contexts: int
    facts: int
    events: int
    turns: int
    sessions: int
    pending_extractions: int
    failed_extractions: int
    usage: dict[str, Usage]
    ungrounded_facts: int = 0  # LLM-extracted facts their context did not support (dropped unless kept)
    batch_extractions: int = 0  # contexts whose facts wait for a batch answer (searchable by provisional anchors)
    unlinked_facts: int = 0  # facts whose events are still to be formed (on the LLM path: integration to ask)


@dataclass
class DeleteReport:
    """What one ``delete`` removed and rebuilt."""

    turns: int = 0
    contexts: int = 0
    facts: int = 0
    events: int = 0
    contexts_rebuilt: int = 0  # windows re-cut from the turns that remain in a touched session
    facts_rebuilt: int = 0
    events_rebuilt: int = 0  # events re-formed around facts that lost their event
    cache_entries_forgotten: int = 0  # LLM responses whose request or response held deleted text
    llm_calls: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class UpdateReport:
    """What one ``update`` did: the turn's text was replaced (``updated``; False when it already read so),
    the windows that held the old text were superseded with their facts and the events on those facts,
    and what the new text supports was derived again."""

    turn_id: str = ""
    updated: bool = False
    contexts_superseded: int = 0  # windows that held the old text
    facts_superseded: int = 0
    events_superseded: int = 0
    contexts_added: int = 0  # windows re-cut from the session with the new text
    facts_added: int = 0
    events_added: int = 0  # events formed around the new facts and those that lost their event
    cache_entries_forgotten: int = 0  # LLM responses whose request or response held the old text
    llm_calls: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryEntry:
    """One change of a memory, as recorded in the append-only history (never the deleted content)."""

    seq: int
    timestamp: float  # seconds since the epoch
    op: str  # "add", "update", "delete", "import"
    scope: Scope
    detail: dict[str, Any]


@dataclass
class ImportReport:
    """What one ``import_records`` wrote."""

    scopes: int = 0
    turns: int = 0
    contexts: int = 0
    facts: int = 0
    events: int = 0
    history: int = 0
