"""What an operation did: token and time usage, and the reports of an add, a delete, an update and an
import, and a memory's statistics."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Self


class Tally:
    """Counts of a dataclass that add up field by field (:meth:`add`; a list field is joined)."""

    def add(self, other: Self) -> None:
        """Add ``other``'s counts to these."""
        for f in fields(self):  # type: ignore[arg-type]  # every Tally is a dataclass
            mine: Any = getattr(self, f.name)
            setattr(self, f.name, mine + getattr(other, f.name))


@dataclass
class Usage(Tally):
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
class DeleteReport(Tally):
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


@dataclass
class ImportReport:
    """What one ``import_records`` wrote."""

    scopes: int = 0
    turns: int = 0
    contexts: int = 0
    facts: int = 0
    events: int = 0
    history: int = 0
