"""Old module names that still import: a package that moved answers to its old dotted names.

A moved package's old ``__init__`` calls :func:`keep_old_names` with the map old leaf name → new module;
``import anchormem.query.snapshot`` then returns the very module ``anchormem.index.snapshot`` (the same
object, so patching one patches the other). Nothing is imported until an old name is asked for.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``<old>.<leaf>`` and loads it as the module it moved to."""

    def __init__(self, old: str, moved: Mapping[str, str]) -> None:
        self._old = old
        self._moved = dict(moved)
        self._own_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        pkg, _, leaf = fullname.rpartition(".")
        if pkg != self._old or leaf not in self._moved:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self._moved[spec.name.rpartition(".")[2]]
        warnings.warn(f"{spec.name} moved to {new}", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        self._own_specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import machinery stamped the old name's spec on the module: give it back its own
        module.__spec__ = self._own_specs[module.__name__]


def keep_old_names(old: str, moved: Mapping[str, str]) -> None:
    """Let ``<old>.<leaf>`` import the module ``moved[leaf]`` names (once per process)."""
    if not any(isinstance(f, _Alias) and f._old == old for f in sys.meta_path):
        sys.meta_path.append(_Alias(old, moved))
