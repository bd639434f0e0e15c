"""The keyword arguments the facades share, declared once: :class:`~anchormem.memory.Memory`,
:class:`~anchormem.aio.AsyncMemory`, :class:`~anchormem.client.Client` and
:class:`~anchormem.client.AsyncClient` take a scope as ``**scope: Unpack[ScopeArgs]`` and a search's
narrowing as ``**options: Unpack[SearchArgs]``, so the keyword names, types and defaults are the same
everywhere. Also the typed shape of ``records(kind, ...)``, whose result type follows the kind.

Light on purpose (no numpy, no store): the REST clients import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, Protocol, TypedDict, Unpack, overload

from anchormem.model import Context, Event, Fact, Turn

TimeBound = str | int | float | datetime
"""A bound of a time range: ISO 8601, Unix seconds or milliseconds, or a ``datetime``."""
Record = Turn | Context | Fact | Event


class ScopeArgs(TypedDict, total=False):
    """Which memory a call is about; each id defaults to ``None``. A user (``user_id``), an agent's own
    memory (``agent_id`` alone), or either narrowed by ``agent_id`` and ``run_id``."""

    user_id: str | None
    agent_id: str | None
    run_id: str | None


class SearchArgs(ScopeArgs, total=False):
    """What ``search`` and ``answer`` share (:meth:`Memory.search <anchormem.memory.Memory.search>`), each
    ``None`` by default unless said.

    The scope is a user, an agent (``agent_id`` alone: the agent's own memory), or either narrowed by agent and
    run. A search covers the scope's sub-scopes too: a user's search looks through everything stored under that
    user, its agents' and runs' memories included, and a user's agent's search through that agent's runs;
    ``include_subscopes=False`` (default ``True``) looks at the exact scope only. Each returned context says
    which scope it is stored in (``ContextHit.scope``).

    ``k`` is how many facts and events the recipe (``variant``) considers (the ``paper`` recipe maps the top
    ``k`` facts to contexts; every recipe returns at most ``k`` events) and, unless ``max_contexts`` is given,
    also the most contexts returned. Left out, both come from the settings (``retrieval.k_facts``,
    ``k_events``, ``max_contexts``). ``max_chars`` caps the context text returned (default
    ``retrieval.max_chars``: 10,000 characters; the best context is always returned). ``trace=True`` attaches
    the retrieval's trace (``SearchResult.trace``: each signal's value, each rerank stage's adjustment, the
    selection step).

    Filters restrict the search to some messages (:mod:`anchormem.search.filters`): ``filters`` is metadata
    equality (``{"topic": "work"}``: every pair must equal the message's ``metadata``; a key no message has
    gives an empty result), ``session`` a session label, ``since``/``until`` a time range on the message time,
    both inclusive (ISO 8601, Unix seconds or milliseconds, or a ``datetime``); messages whose time is unknown
    never match a time range. A context, a window of several turns, is returned when at least one of its turns
    matches every filter; an event only when all its source facts come from such contexts."""

    k: int | None
    variant: str | None
    max_chars: int | None
    trace: bool
    include_subscopes: bool
    filters: Mapping[str, Any] | None
    session: str | None
    since: TimeBound | None
    until: TimeBound | None


class AddArgs(ScopeArgs, total=False):
    """What ``add`` takes beside its source: a scope, and ``readd`` (store messages a delete removed before;
    default ``False``: they are skipped) (see :meth:`Memory.add <anchormem.memory.Memory.add>`)."""

    readd: bool


SCOPE_KEYS = frozenset(ScopeArgs.__optional_keys__)
SEARCH_KEYS = frozenset(SearchArgs.__optional_keys__)
ADD_KEYS = frozenset(AddArgs.__optional_keys__)


def scope_ids(args: Mapping[str, Any], method: str, allowed: frozenset[str] = SCOPE_KEYS) -> tuple[Any, Any, Any]:
    """``(user_id, agent_id, run_id)`` of a call's keyword arguments; any keyword outside ``allowed`` is a
    :class:`TypeError`, as for a function that does not name it."""
    unknown = sorted(set(args) - allowed)
    if unknown:
        raise TypeError(f"{method}() got an unexpected keyword argument {unknown[0]!r}")
    return args.get("user_id"), args.get("agent_id"), args.get("run_id")


class RecordsReader(Protocol):
    """``records(kind, **scope)``: the records of one kind named at run time, typed by the kind."""

    @overload
    def __call__(self, kind: Literal["turns"], **scope: Unpack[ScopeArgs]) -> list[Turn]: ...
    @overload
    def __call__(self, kind: Literal["contexts"], **scope: Unpack[ScopeArgs]) -> list[Context]: ...
    @overload
    def __call__(self, kind: Literal["facts"], **scope: Unpack[ScopeArgs]) -> list[Fact]: ...
    @overload
    def __call__(self, kind: Literal["events"], **scope: Unpack[ScopeArgs]) -> list[Event]: ...
    @overload
    def __call__(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Record]: ...


class AsyncRecordsReader(Protocol):
    """:class:`RecordsReader`, awaitable."""

    @overload
    async def __call__(self, kind: Literal["turns"], **scope: Unpack[ScopeArgs]) -> list[Turn]: ...
    @overload
    async def __call__(self, kind: Literal["contexts"], **scope: Unpack[ScopeArgs]) -> list[Context]: ...
    @overload
    async def __call__(self, kind: Literal["facts"], **scope: Unpack[ScopeArgs]) -> list[Fact]: ...
    @overload
    async def __call__(self, kind: Literal["events"], **scope: Unpack[ScopeArgs]) -> list[Event]: ...
    @overload
    async def __call__(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Record]: ...
