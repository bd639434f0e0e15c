"""Named parts a user can extend: embedders, stores, LLM clients and rerank stages.

Each kind has one :class:`Registry`. Its built-ins are listed in :mod:`anchormem.registries` as
``"module:attribute"`` strings, imported only when one is used, so listing the names (the command line's
choices, a config file's check) stays light. A third party adds its own either

- by an entry point in its package's metadata, in the kind's group (``anchormem.embedders``,
  ``anchormem.stores``, ``anchormem.llms``, ``anchormem.rerankers``), the name being the entry point's::

      [project.entry-points."anchormem.embedders"]
      my-embedder = "my_package.embed:build"

- or in code, with :meth:`Registry.register` (also a decorator).

A config file then names it like a built-in (``[embed] backend = "my-embedder"``). What a name maps to is
the kind's factory; see each registry's ``factory`` line in :mod:`anchormem.registries`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Generic, TypeVar, overload

from anchormem.errors import ConfigError

T = TypeVar("T")


def _resolve(target: str) -> object:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


class Registry(MutableMapping[str, T], Generic[T]):
    """Factories of one kind by name: built-ins first (in their listed order), then those registered in code,
    then those of the entry point ``group`` (read once, on first need). Setting a name replaces its factory."""

    def __init__(self, kind: str, group: str, builtins: Mapping[str, str]) -> None:
        self.kind = kind
        self.group = group
        self._builtins = dict(builtins)  # name -> "module:attribute", imported on first use
        self._loaded: dict[str, T] = {}
        self._order: list[str] = list(builtins)
        self._entry_points_read = False
        self._lock = threading.Lock()

    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        with self._lock:
            if self._entry_points_read:
                return
            from importlib.metadata import entry_points  # only now: it imports zipfile, email and more

            for point in entry_points(group=self.group):
                if point.name not in self._builtins and point.name not in self._loaded:
                    self._builtins[point.name] = point.value
                    self._order.append(point.name)
            self._entry_points_read = True

    def __getitem__(self, name: str) -> T:
        found = self._loaded.get(name)
        if found is not None:
            return found
        if name not in self._builtins:
            self._read_entry_points()
        target = self._builtins.get(name)
        if target is None:
            raise KeyError(name)
        factory: T = _resolve(target)  # type: ignore[assignment]  # the registry's kind, by its contract
        self._loaded[name] = factory
        return factory

    def __setitem__(self, name: str, factory: T) -> None:
        self._loaded[name] = factory
        if name not in self._order:
            self._order.append(name)

    def __delitem__(self, name: str) -> None:
        if name not in self._loaded and name not in self._builtins:
            raise KeyError(name)
        self._loaded.pop(name, None)
        self._builtins.pop(name, None)
        self._order.remove(name)

    def __iter__(self) -> Iterator[str]:
        self._read_entry_points()
        return iter(list(self._order))

    def __len__(self) -> int:
        self._read_entry_points()
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        if name in self._loaded or name in self._builtins:
            return True
        self._read_entry_points()
        return name in self._builtins

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, factory: T) -> T: ...
    def register(self, name: str, factory: T | None = None) -> T | Callable[[T], T]:
        """Add ``factory`` under ``name``; without ``factory``, a decorator that adds what it decorates."""
        if factory is not None:
            self[name] = factory
            return factory

        def add(given: T) -> T:
            self[name] = given
            return given

        return add

    def named(self, name: str) -> T:
        """The factory of ``name``; an unknown name is a :class:`ConfigError` listing the known ones."""
        try:
            return self[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; choose one of {', '.join(self)}") from None
