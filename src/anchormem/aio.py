"""``AsyncMemory``: the :class:`~anchormem.memory.Memory` facade as awaitables, for asyncio code.

There is one model layer: every method calls the same-named method of a wrapped ``Memory`` in a
worker thread and returns its result unchanged (same types, same errors), so the event loop never
waits on the store, the embedding model or the LLM.

Thread safety: a ``Memory`` may be called from several threads at once (the REST server does the
same): the store serialises its connection, writes to one user's memory take that user's writer
lock, and reads see committed data. So concurrent ``await``\\ s on one ``AsyncMemory`` are safe;
they run on the loop's default executor (or the ``executor`` given), and contextvars travel with
each call. Close it with ``await memory.aclose()`` or ``async with AsyncMemory(...) as memory``.

The methods below are made from ``Memory``'s own (``search = in_thread(Memory.search)``), so they take
its parameters with its types and defaults. Methods of ``Memory`` not listed (a new one, say) are still
offered: any public method of the wrapped facade is returned as a coroutine function that runs it in a
worker thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar, Unpack

from anchormem._util.bound import Bound
from anchormem.config import Settings
from anchormem.memory import Memory
from anchormem.parts import GivenParts
from anchormem.wire.args import AsyncRecordsReader, ScopeArgs

P = ParamSpec("P")
R = TypeVar("R")


def in_thread(method: Callable[Concatenate[Memory, P], R]) -> Bound[AsyncMemory, P, Coroutine[Any, Any, R]]:
    """An :class:`AsyncMemory` method that runs the same-named method of the wrapped ``Memory`` in a
    worker thread: that method's parameters, types, defaults and docstring are this one's."""
    name = method.__name__

    async def call(memory: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await memory._run(getattr(memory.sync, name), *args, **kwargs)

    return Bound(call, method)


class AsyncMemory:
    """Long-term memory for asyncio code: the methods of :class:`~anchormem.memory.Memory`, awaitable.

    Build it like a ``Memory`` (``AsyncMemory(settings, store=..., embedder=..., llm=...)``) or wrap
    one you already have with :meth:`wrap`. ``memory.sync`` is the wrapped facade.
    """

    def __init__(
        self, settings: Settings | None = None, *, executor: Executor | None = None, **parts: Unpack[GivenParts]
    ) -> None:
        self.sync = Memory(settings, **parts)
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

    # -- the methods of Memory, each run in a worker thread (see anchormem._util.bound) -------------------------

    add = in_thread(Memory.add)
    search = in_thread(Memory.search)
    answer = in_thread(Memory.answer)
    turns = in_thread(Memory.turns)
    contexts = in_thread(Memory.contexts)
    facts = in_thread(Memory.facts)
    events = in_thread(Memory.events)
    get = in_thread(Memory.get)
    stats = in_thread(Memory.stats)
    users = in_thread(Memory.users)
    update = in_thread(Memory.update)
    delete = in_thread(Memory.delete)
    history = in_thread(Memory.history)
    import_records = in_thread(Memory.import_records)

    # -- written out: a result typed by its kind, and a lazy iterator read to its end -------------------

    async def export(self, **scope: Unpack[ScopeArgs]) -> list[dict[str, Any]]:
        """:meth:`Memory.export`, read to the end in a worker thread (the sync one is a lazy iterator)."""
        return await self._run(lambda: list(self.sync.export(**scope)))

    @property
    def records(self) -> AsyncRecordsReader:
        """:meth:`Memory.records`, awaitable."""
        return self._records

    async def _records(self, kind: str, **scope: Unpack[ScopeArgs]) -> list[Any]:
        return await self._run(lambda: self.sync.records(kind, **scope))

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
