"""``AsyncMemory``: the :class:`~anchormem.memory.Memory` facade as awaitables, for asyncio code.

There is one model layer: every method calls the same-named method of a wrapped ``Memory`` in a
worker thread and returns its result unchanged (same types, same errors), so the event loop never
waits on the store, the embedding model or the LLM.

Thread safety: a ``Memory`` may be called from several threads at once (the REST server does the
same): the store serialises its connection, writes to one user's memory take that user's writer
lock, and reads see committed data. So concurrent ``await``\\ s on one ``AsyncMemory`` are safe;
they run on the loop's default executor (or the ``executor`` given), and contextvars travel with
each call. Close it with ``await memory.aclose()`` or ``async with AsyncMemory(...) as memory``.

The methods below are made from ``Memory``'s own (``search = InThread(Memory.search)``), so they take
its parameters with its types and defaults. Methods of ``Memory`` not listed (a new one, say) are still
offered: any public method of the wrapped facade is returned as a coroutine function that runs it in a
worker thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from anchormem.config import Settings
from anchormem.embed.protocol import Embedder
from anchormem.llm.protocol import LLM
from anchormem.memory import Memory, Record
from anchormem.store.protocol import Store

P = ParamSpec("P")
R = TypeVar("R")


class InThread(Generic[P, R]):
    """An :class:`AsyncMemory` method that runs the same-named method of the wrapped ``Memory`` in a
    worker thread: that method's parameters, types, defaults and docstring are this one's."""

    def __init__(self, method: Callable[Concatenate[Memory, P], R]) -> None:
        self.name = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, memory: None, owner: type[AsyncMemory]) -> Self: ...
    @overload
    def __get__(self, memory: AsyncMemory, owner: type[AsyncMemory]) -> Callable[P, Coroutine[Any, Any, R]]: ...
    def __get__(
        self, memory: AsyncMemory | None, owner: type[AsyncMemory]
    ) -> Self | Callable[P, Coroutine[Any, Any, R]]:
        if memory is None:
            return self
        target: Callable[P, R] = getattr(memory.sync, self.name)

        @functools.wraps(target)
        async def method(*args: P.args, **kwargs: P.kwargs) -> R:
            return await memory._run(target, *args, **kwargs)

        return method


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

    # -- ingest and query --------------------------------------------------------------------------------

    add = InThread(Memory.add)
    add_all = InThread(Memory.add_all)
    search = InThread(Memory.search)
    answer = InThread(Memory.answer)

    # -- inspect -----------------------------------------------------------------------------------------

    turns = InThread(Memory.turns)
    contexts = InThread(Memory.contexts)
    facts = InThread(Memory.facts)
    events = InThread(Memory.events)

    async def records(self, kind: str, **scope: Any) -> Sequence[Record]:
        return await self._run(lambda: self.sync.records(kind, **scope))

    get = InThread(Memory.get)
    stats = InThread(Memory.stats)
    users = InThread(Memory.users)

    # -- lifecycle ---------------------------------------------------------------------------------------

    update = InThread(Memory.update)
    delete = InThread(Memory.delete)
    history = InThread(Memory.history)
    import_records = InThread(Memory.import_records)

    async def export(self, **scope: Any) -> list[dict[str, Any]]:
        """:meth:`Memory.export`, read to the end in a worker thread (the sync one is a lazy iterator)."""
        return await self._run(lambda: list(self.sync.export(**scope)))

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
