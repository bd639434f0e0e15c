"""Everything of one scope's memory that retrieval needs, plus lazily built derived indexes.

The store layer builds a :class:`ScopeSnapshot`; the indexes (BM25 over contexts and facts, fact ->
context rows, event -> context rows, turn coverage) are computed on first use and cached on the
snapshot, so a query costs a few matrix products and sparse row sums.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import overload

import numpy as np
import numpy.typing as npt

from anchormem._util.languages import ENGLISH
from anchormem.config import ChunkSettings
from anchormem.errors import ConfigError, InputError
from anchormem.index.neighbours import MIN_ROWS, FactNeighbours
from anchormem.index.rowindex import RowIndex
from anchormem.index.rows import Blocks
from anchormem.index.store_rows import row_sum
from anchormem.model import VERBATIM_SOURCES, Context, Event, Fact, Scope, Turn
from anchormem.text.dates import parse_when
from anchormem.text.lexical import BM25Index
from anchormem.text.person import user_names as names_given
from anchormem.text.person import user_speaker
from anchormem.text.subwords import SubwordIndex
from anchormem.text.voice import anchor_speaker

IntArray = npt.NDArray[np.int64]
TurnKey = tuple[Scope | None, str]
_EPOCH = datetime(1970, 1, 1)
Vectors = Blocks | npt.NDArray[np.float32]


class _RowLists(Sequence[list[int]]):
    """A list of row numbers per item, each made when it is asked for (:meth:`_row`)."""

    @abstractmethod
    def _row(self, item: int) -> list[int]:
        """The rows of ``item`` (each subclass says where it finds them)."""

    @overload
    def __getitem__(self, item: int) -> list[int]: ...
    @overload
    def __getitem__(self, item: slice) -> list[list[int]]: ...
    def __getitem__(self, item: int | slice) -> list[int] | list[list[int]]:
        if isinstance(item, slice):
            return [self._row(i) for i in range(len(self))[item]]
        return self._row(item)

    def __iter__(self) -> Iterator[list[int]]:
        return (self._row(i) for i in range(len(self)))


class FactGroups(_RowLists):
    """Fact rows of each context (``snapshot.context_facts[row]``), read from ``fact_segments``: no list per
    context is built until one is asked for."""

    def __init__(self, order: IntArray, start: IntArray, end: IntArray) -> None:
        # arrays only: a snapshot file may call this constructor, and must not make it allocate by a number
        self._order = order
        self._start = start
        self._end = end

    @classmethod
    def of(cls, segments: tuple[IntArray, IntArray, IntArray], n_contexts: int) -> FactGroups:
        """The groups of ``n_contexts`` contexts from :attr:`ScopeSnapshot.fact_segments`."""
        order, starts, rows = segments
        start = np.zeros(n_contexts, dtype=np.int64)
        end = np.zeros(n_contexts, dtype=np.int64)
        start[rows] = starts
        end[rows] = np.r_[starts[1:], order.size] if starts.size else starts
        return cls(order, start, end)

    def __len__(self) -> int:
        return len(self._start)

    def _row(self, item: int) -> list[int]:
        return [int(f) for f in self._order[self._start[item] : self._end[item]]]


class EventFacts(_RowLists):
    """Fact rows of each event's known source facts (``snapshot.event_facts[e]``), looked up when asked."""

    def __init__(self, snapshot: ScopeSnapshot) -> None:
        self._events = snapshot.events
        self._rows = snapshot.fact_row

    def __len__(self) -> int:
        return len(self._events)

    def _row(self, item: int) -> list[int]:
        rows = self._rows
        return [rows[fid] for fid in self._events[item].fact_ids if fid in rows]


@dataclass(eq=False)
class ScopeSnapshot:
    """One user's memory as retrieval sees it.

    ``contexts`` are in conversation order (session, then position): reading order follows it.
    ``fact_vectors`` row i belongs to ``facts[i]``; ``event_vectors`` row j to ``events[j]``.
    Facts whose context is missing are ignored; event fact ids that are unknown are skipped.

    A snapshot may hold several scopes (a user's search covers the user's agent and run scopes,
    ``query.merge``): ``context_scopes`` row i is the scope of ``contexts[i]`` (empty when not known),
    and because turn ids repeat across scopes (every LoCoMo run has a "D1:3"), the turn indexes key a
    turn by its scope and id (:meth:`turn_key`). ``load_turns`` gives the stored turns with their
    scopes, for search filters on metadata and time (``anchormem.search.filters``); called once, on first use.
    """

    contexts: list[Context]
    facts: Sequence[Fact]  # a list, or a SharedList (``query.shared_list``) in a grown snapshot
    fact_vectors: Vectors  # kept as Blocks (``query.rows``): a grown snapshot shares its rows with the last
    events: Sequence[Event] = field(default_factory=list)
    event_vectors: Vectors = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    embed_texts: Callable[[list[str]], npt.NDArray[np.float32]] | None = None  # for the ``chunks`` baseline
    window_chars: int = ChunkSettings().chat_chars  # text of a full chat window (``ChunkSettings.chat_chars``)
    context_scopes: tuple[Scope, ...] = ()
    load_turns: Callable[[], Sequence[tuple[Scope | None, Turn]]] | None = None
    restricted: dict[object, ScopeSnapshot] = field(default_factory=dict, repr=False)  # filtered parts, kept

    def __post_init__(self) -> None:
        self.fact_vectors = Blocks.of(self.fact_vectors)
        self.event_vectors = Blocks.of(self.event_vectors)
        if len(self.fact_vectors) != len(self.facts):
            raise InputError(f"{len(self.facts)} facts but {len(self.fact_vectors)} fact vectors")
        if len(self.events) and len(self.event_vectors) != len(self.events):
            raise InputError(f"{len(self.events)} events but {len(self.event_vectors)} event vectors")
        if self.context_scopes and len(self.context_scopes) != len(self.contexts):
            raise InputError(f"{len(self.contexts)} contexts but {len(self.context_scopes)} context scopes")

    # -- scopes and turns ---------------------------------------------------------------------
    def scope_of(self, row: int) -> Scope | None:
        """The scope of context ``row`` (None when the snapshot does not say)."""
        return self.context_scopes[row] if self.context_scopes else None

    @cached_property
    def several_scopes(self) -> bool:
        return len(set(self.context_scopes)) > 1

    def turn_key(self, row: int, turn_id: str) -> str:
        """The key of a turn of context ``row`` in the turn indexes: its id, prefixed by its scope
        when the snapshot holds several scopes."""
        if self.several_scopes:
            return f"{self.context_scopes[row].key()}\x1e{turn_id}"
        return turn_id

    @cached_property
    def turns(self) -> dict[TurnKey, Turn]:
        """The stored turns by (scope, turn id), loaded on first use (empty without ``load_turns``)."""
        if self.load_turns is None:
            return {}
        return {(scope, turn.id): turn for scope, turn in self.load_turns()}

    @cached_property
    def context_vectors(self) -> npt.NDArray[np.float32]:
        """Embeddings of the context texts, for the NaiveRAG baseline only (``chunks``); computed
        on first use with ``embed_texts`` — the AnchorMem recipes never embed contexts."""
        if self.embed_texts is None:
            raise ConfigError(
                "the 'chunks' variant embeds whole contexts and needs an embedder: run it through Memory.search"
            )
        if not self.contexts:
            return np.zeros((0, 0), np.float32)
        return np.asarray(self.embed_texts([c.text for c in self.contexts]), dtype=np.float32)

    # -- maps ---------------------------------------------------------------------------------
    @cached_property
    def fact_speakers(self) -> Sequence[str | None]:
        """Per fact, the speaker of a verbatim anchor (the offline extractor's "user: I moved."), else None."""
        return [anchor_speaker(f.text) if f.source in VERBATIM_SOURCES else None for f in self.facts]

    @cached_property
    def speaker_sums(self) -> dict[str, tuple[npt.NDArray[np.float64], int]]:
        """Per speaker that verbatim anchors name: the sum of its anchors' vectors (float64) and their count."""
        groups: dict[str, list[int]] = {}
        for i, who in enumerate(self.fact_speakers):
            if who is not None:
                groups.setdefault(who, []).append(i)
        return {who: (row_sum(self.fact_vectors, rows), len(rows)) for who, rows in groups.items()}

    @cached_property
    def speakers(self) -> frozenset[str]:
        """The speakers that verbatim anchors name."""
        return frozenset(filter(None, self.fact_speakers))

    @cached_property
    def user_names(self) -> frozenset[str]:
        """The names the user gave themselves in their own verbatim anchors ("my name is Hannah";
        :func:`anchormem.text.person.user_names`), where the memory has a user's speaker."""
        user = user_speaker(self.speakers)
        if user is None:
            return frozenset()
        return names_given(f.text for f, who in zip(self.facts, self.fact_speakers, strict=True) if who == user)

    @cached_property
    def context_times(self) -> npt.NDArray[np.float64]:
        """Per context, its DATE as seconds since 1970 (NaN where no date can be read)."""
        out = np.full(len(self.contexts), np.nan)
        for row, context in enumerate(self.contexts):
            when = parse_when(context.date)
            if when is not None:
                out[row] = (when - _EPOCH).total_seconds()
        return out

    @cached_property
    def session_numbers(self) -> dict[object, int]:
        """A number per session (its label; with its scope when the snapshot holds several), for
        :attr:`session_codes`; a snapshot grown from this one adds its new sessions to the same dictionary."""
        return {}

    @cached_property
    def session_codes(self) -> IntArray:
        """Per context, the number of its session (:attr:`session_numbers`)."""
        numbers = self.session_numbers
        if self.several_scopes:
            keys: list[object] = [(self.scope_of(row), c.session) for row, c in enumerate(self.contexts)]
        else:
            keys = [c.session for c in self.contexts]
        return np.asarray([numbers.setdefault(k, len(numbers)) for k in keys], dtype=np.int64)

    @cached_property
    def context_row(self) -> RowIndex:
        """Context id -> its row (= reading order)."""
        return RowIndex.of([c.id for c in self.contexts])

    @cached_property
    def fact_row(self) -> RowIndex:
        return RowIndex.of([f.id for f in self.facts])

    @cached_property
    def fact_neighbours(self) -> FactNeighbours | None:
        """The bound index of the fact vectors, for linking new facts (``query.neighbours``); None below
        ``MIN_ROWS`` facts, where a pass over all vectors is as cheap. Built on first use, by an add."""
        return FactNeighbours.build(self.fact_vectors) if len(self.facts) >= MIN_ROWS else None

    @cached_property
    def fact_context(self) -> IntArray:
        """Row of each fact's context (-1 if the context is not in the snapshot)."""
        return self.context_row.rows_of([f.context_id for f in self.facts])

    @cached_property
    def context_facts(self) -> FactGroups:
        """Fact rows of each context, in fact order."""
        return FactGroups.of(self.fact_segments, len(self.contexts))

    @cached_property
    def fact_segments(self) -> tuple[IntArray, IntArray, IntArray]:
        """Facts grouped by context for ``np.maximum.reduceat``: (fact rows sorted by context,
        start of each group, context row of each group)."""
        ctx = self.fact_context
        known = np.flatnonzero(ctx >= 0)
        order = known[np.argsort(ctx[known], kind="stable")]
        if order.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        rows = ctx[order]
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        return order.astype(np.int64), starts.astype(np.int64), rows[starts].astype(np.int64)

    @cached_property
    def event_facts(self) -> EventFacts:
        """Fact rows of each event's known source facts."""
        return EventFacts(self)

    @cached_property
    def event_row(self) -> RowIndex:
        return RowIndex.of([e.id for e in self.events])

    @cached_property
    def fact_event_ids(self) -> dict[str, tuple[str, ...]]:
        """Per fact id, the ids of the events built on it (facts of no event are absent). A snapshot grown from
        this one (``query.evolve``) adds its new events to the same dictionary and leaves removed ones in it:
        check an event id against :attr:`event_row`."""
        found: dict[str, list[str]] = {}
        for e in self.events:
            for fid in e.fact_ids:
                found.setdefault(fid, []).append(e.id)
        return {f: tuple(es) for f, es in found.items()}

    def piece_keys(self, row: int) -> list[str]:
        """The keys of context ``row``'s pieces in the turn indexes, in order without repeats: a whole
        message's :meth:`turn_key`; a passage of a long message (``Context.offsets``) that key with its
        offsets, so two passages of one message are different pieces (neither covers the other) while
        the same piece held twice is one."""
        context = self.contexts[row]
        keys = (
            self.turn_key(row, tid) if start is None else f"{self.turn_key(row, tid)}\x1d{start}:{end}"
            for tid, start, end in context.pieces()
        )
        return list(dict.fromkeys(keys))

    @cached_property
    def context_turns(self) -> list[frozenset[str]]:
        """Piece keys (:meth:`piece_keys`: turn keys, with offsets for passages) of each context."""
        return [frozenset(self.piece_keys(row)) for row in range(len(self.contexts))]

    @cached_property
    def context_share(self) -> list[float]:
        """The share of a full window each context holds, which is the place it takes in a result
        (``query.select``). The paper's windows overlap their session neighbours by a turn and count
        1 each. A window that shares no turn with a neighbour of its session was cut by length (a
        chat window, ``ingest.chunk``) and counts its text (DATE line included) over
        ``window_chars``, at most 1: a window closed early because the next turn did not fit, or
        at the end of a session, is a part of a window. A session's only window counts 1.
        """
        return [self.share_of(row) for row in range(len(self.contexts))]

    def share_of(self, row: int) -> float:
        """:attr:`context_share` of one row (it depends on the row and its neighbours of its session)."""
        turns = self.context_turns
        contexts = self.contexts
        context = contexts[row]
        neighbours = [
            r for r in (row - 1, row + 1) if 0 <= r < len(contexts) and contexts[r].session == context.session
        ]
        cut_by_length = bool(neighbours) and not any(turns[row] & turns[r] for r in neighbours)
        if cut_by_length and self.window_chars > 0:
            return min(1.0, len(context.text) / self.window_chars)
        return 1.0

    @cached_property
    def piece_numbers(self) -> dict[str, int]:
        """A number per piece key (:meth:`piece_keys`), for :attr:`turn_segments`. A snapshot grown from this
        one adds its new pieces to the same dictionary (numbers only grow; a piece no context holds any more
        keeps its number, unused)."""
        return {}

    @cached_property
    def turn_segments(self) -> tuple[IntArray, IntArray, int]:
        """Windows -> turns for spreading scores over shared turns: (context row of each (window,
        piece) pair, piece number of the pair, count of piece numbers); pieces as in
        :meth:`piece_keys`, so passages of one message share nothing."""
        numbers = self.piece_numbers
        ctx_rows: list[int] = []
        turn_rows: list[int] = []
        for row in range(len(self.contexts)):
            for key in self.piece_keys(row):
                ctx_rows.append(row)
                turn_rows.append(numbers.setdefault(key, len(numbers)))
        return np.asarray(ctx_rows, dtype=np.int64), np.asarray(turn_rows, dtype=np.int64), len(numbers)

    # -- lexical indexes ----------------------------------------------------------------------
    @cached_property
    def context_bm25(self) -> BM25Index:
        return BM25Index([c.text for c in self.contexts])  # the DATE line helps dated questions

    @cached_property
    def fact_bm25(self) -> BM25Index:
        return BM25Index([f.text for f in self.facts])

    @property
    def other_language_share(self) -> float:
        """The share of the contexts written in a language other than English (0.0 in an English scope): where the
        bundled embedder, which learned English, says less and the lexical signals weigh more."""
        return 1.0 - self.context_bm25.share(ENGLISH)

    @cached_property
    def context_subwords(self) -> SubwordIndex:
        """BM25 over the pieces of the contexts' words (``text.subwords``): built on the first search that weighs
        it, one of a scope not written in English."""
        return SubwordIndex([c.text for c in self.contexts])

    def warm(self) -> None:
        """Build every derived index now (e.g. right after loading), not on the first query; the word pieces' index
        only for a scope not written in English, the one kind of scope whose searches read it."""
        names = [
            "context_row",
            "fact_row",
            "fact_context",
            "context_facts",
            "fact_segments",
            "event_facts",
            "context_turns",
            "context_share",
            "turn_segments",
            "context_bm25",
            "fact_bm25",
        ]
        if self.other_language_share > 0.0:
            names.append("context_subwords")
        for name in names:
            getattr(self, name)
