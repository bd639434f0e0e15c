"""What the prompt block renders, by the shape it is read by: the model renders itself through
:mod:`anchormem.render.prompt_block`, so the renderer names none of the model's classes (``Scope``,
``Context``, ``ContextHit``, ``EventHit``, ``SearchResult``); these protocols say what it reads of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Scope(Protocol):
    @property
    def user_id(self) -> str: ...
    @property
    def agent_id(self) -> str | None: ...
    @property
    def run_id(self) -> str | None: ...


class _Text(Protocol):
    """A record the block shows the text of (a context, a fact, an event)."""

    @property
    def text(self) -> str: ...


class _Context(_Text, Protocol):
    @property
    def session(self) -> str: ...
    @property
    def position(self) -> int: ...
    @property
    def turn_ids(self) -> tuple[str, ...]: ...
    @property
    def date(self) -> str | None: ...
    def pieces(self) -> tuple[tuple[str, int | None, int | None], ...]: ...


class _Fact(_Text, Protocol):
    @property
    def verbatim(self) -> bool: ...


class _Anchor(Protocol):
    @property
    def fact(self) -> _Fact: ...


class ContextHit(Protocol):
    @property
    def context(self) -> _Context: ...
    @property
    def latest(self) -> bool | None: ...
    @property
    def scope(self) -> Scope | None: ...
    @property
    def anchors(self) -> Sequence[_Anchor]: ...
    @property
    def adjustments(self) -> Sequence[tuple[str, float]]: ...


class _Event(_Text, Protocol):
    @property
    def source(self) -> str: ...


class EventHit(Protocol):
    @property
    def event(self) -> _Event: ...
    @property
    def sessions(self) -> Sequence[str]: ...


class SearchResult(Protocol):
    @property
    def query(self) -> str: ...
    @property
    def contexts(self) -> Sequence[ContextHit]: ...
    @property
    def events(self) -> Sequence[EventHit]: ...
    def in_reading_order(self) -> Sequence[ContextHit]: ...
