"""``AsyncMemory``: the :class:`~anchormem.memory.Memory` facade as awaitables, for asyncio code.

There is one model layer: every method calls the same-named method of a wrapped ``Memory`` in a
worker thread and returns its result unchanged (same types, same errors), so the event loop never
waits on the store, the embedding model or the LLM.

Thread safety: a ``Memory`` may be called from several threads at once (the REST server does the
same): the store serialises its connection, writes to one user's memory take that user's writer
lock, and reads see committed data. So concurrent ``await``\\ s on one ``AsyncMemory`` are safe;
they run on the loop's default executor (or the ``executor`` given), and contextvars travel with
each call. Close it with ``await memory.aclose()`` or ``async with AsyncMemory(...) as memory``.

Methods of ``Memory`` not spelled out below (a new one, say) are still offered: any public method of
the wrapped facade is returned as a coroutine function that runs it in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from anchormem.config import Settings
from anchormem.embed.protocol import Embedder
from anchormem.llm.protocol import LLM
from anchormem.memory import Memory, Record
from anchormem.model import (
    Answer,
    Context,
    DeleteReport,
    Event,
    Fact,
    HistoryEntry,
    ImportReport,
    IngestReport,
    Scope,
    SearchResult,
    Stats,
    Turn,
)
from anchormem.store.protocol import Store

P = ParamSpec("P")
R = TypeVar("R")


class AsyncMemory:
    """Long-term memory for asyncio code: the methods of :class:`~anchormem.memory.Memory`, awaitable.

    Build it like a ``Memory`` (``AsyncMemory(settings, store=..., embedder=..., llm=...)``) or wrap
    one you already have with :meth:`wrap`. ``memory.sync`` is the wrapped facade.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.sync = Memory(settings, store=store, embedder=embedder, llm=llm)
        self._executor = executor

    @classmethod
    def wrap(cls, memory: Memory, *, executor: Executor | None = None) -> AsyncMemory:
        """An ``AsyncMemory`` over an existing facade (both may be used; they share everything)."""
        self = cls.__new__(cls)
        self.sync = memory
        self._executor = executor
        return self

    @classmethod
    def from_env(cls, config_file: str | Path | None = None, **overrides: Any) -> AsyncMemory:
        """Settings from the environment and config file, as :meth:`Memory.from_env`."""
        return cls.wrap(Memory.from_env(config_file, **overrides))

    @property
    def settings(self) -> Settings:
        return self.sync.settings

    async def _run(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        loop = asyncio.get_running_loop()
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        return await loop.run_in_executor(self._executor, call)

    # -- ingest ------------------------------------------------------------------------------------------

    async def add(self, source: Any, **kwargs: Any) -> IngestReport:
        """:meth:`Memory.add` (what it takes as ``source``; ``user_id=`` and the other keywords as there)."""
        return await self._run(self.sync.add, source, **kwargs)

    async def add_all(self, path: str | Path, **kwargs: Any) -> dict[str, IngestReport]:
        """:meth:`Memory.add_all`."""
        return await self._run(self.sync.add_all, path, **kwargs)

    # -- query -------------------------------------------------------------------------------------------

    async def search(self, query: str, **kwargs: Any) -> SearchResult:
        """:meth:`Memory.search` (``user_id=``, ``k=``, ... as there)."""
        return await self._run(self.sync.search, query, **kwargs)

    async def answer(self, question: str, **kwargs: Any) -> Answer:
        """:meth:`Memory.answer`."""
        return await self._run(self.sync.answer, question, **kwargs)

    # -- inspect -----------------------------------------------------------------------------------------

    async def turns(self, **scope: Any) -> list[Turn]:
        return await self._run(self.sync.turns, **scope)

    async def contexts(self, **scope: Any) -> list[Context]:
        return await self._run(self.sync.contexts, **scope)

    async def facts(self, **scope: Any) -> list[Fact]:
        return await self._run(self.sync.facts, **scope)

    async def events(self, **scope: Any) -> list[Event]:
        return await self._run(self.sync.events, **scope)

    async def records(self, kind: str, **scope: Any) -> Sequence[Record]:
        return await self._run(lambda: self.sync.records(kind, **scope))

    async def get(self, record_id: str, **scope: Any) -> Record:
        return await self._run(self.sync.get, record_id, **scope)

    async def stats(self, **scope: Any) -> Stats:
        return await self._run(self.sync.stats, **scope)

    async def users(self) -> list[Scope]:
        return await self._run(self.sync.users)

    # -- lifecycle ---------------------------------------------------------------------------------------

    async def delete(self, **kwargs: Any) -> DeleteReport:
        """:meth:`Memory.delete` (exactly one target: ``session=``, ``turn=``, ``context=`` or ``all=True``)."""
        return await self._run(self.sync.delete, **kwargs)

    async def history(self, **kwargs: Any) -> list[HistoryEntry]:
        return await self._run(self.sync.history, **kwargs)

    async def export(self, **scope: Any) -> list[dict[str, Any]]:
        """:meth:`Memory.export`, read to the end in a worker thread (the sync one is a lazy iterator)."""
        return await self._run(lambda: list(self.sync.export(**scope)))

    async def import_records(self, records: Iterable[Mapping[str, Any]]) -> ImportReport:
        return await self._run(self.sync.import_records, records)

    # -- other methods of the facade, and closing --------------------------------------------------------

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name == "sync":
            raise AttributeError(name)
        target = getattr(self.sync, name)
        if not callable(target):
            raise AttributeError(f"AsyncMemory has no attribute {name!r}")

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._run(target, *args, **kwargs)

        functools.update_wrapper(call, target)
        return call

    async def aclose(self) -> None:
        await self._run(self.sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
