"""The old module names of issue 28's moves (``anchormem.query.*``) still import: the very module that moved,
with a DeprecationWarning, and nothing for a name that never existed."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_an_old_name_imports_the_moved_module_itself() -> None:
    import anchormem.index.snapshot as new

    sys.modules.pop("anchormem.query.snapshot", None)
    with pytest.warns(DeprecationWarning, match=r"anchormem\.query\.snapshot moved to anchormem\.index\.snapshot"):
        old = importlib.import_module("anchormem.query.snapshot")
    assert old is new
    assert new.__spec__ is not None and new.__spec__.name == "anchormem.index.snapshot"  # its own spec kept
    assert importlib.reload(new) is new


def test_each_old_name_reaches_a_module_of_the_new_rooms() -> None:
    from anchormem.query import _MOVED

    for old, new in _MOVED.items():
        sys.modules.pop(f"anchormem.query.{old}", None)
        with pytest.warns(DeprecationWarning):
            module = importlib.import_module(f"anchormem.query.{old}")
        assert module is importlib.import_module(new)
        assert new.split(".")[1] in {"text", "index", "search", "answer", "records"}


def test_a_name_that_never_was_is_an_import_error() -> None:
    with pytest.raises(ImportError):
        importlib.import_module("anchormem.query.nothing_here")
