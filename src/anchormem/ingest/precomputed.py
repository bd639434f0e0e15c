"""Facts and events extracted elsewhere, handed to an add instead of extracting them (the paper's released
batch extraction, read from its files by :mod:`anchormem.eval.precomputed`). Facts attach to contexts by
turn ids; events attach to facts by text."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Precomputed:
    """Facts keyed by a context's turn ids, and events with their source fact texts."""

    facts: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    events: list[tuple[str, list[str]]] | None = None
