"""Pausing the cyclic garbage collector while a big, long-lived structure is built.

Loading a scope makes millions of objects that live as long as its snapshot (rows, tuples, dictionaries);
none of them is garbage, yet each time their number grows by a quarter the collector walks all of them.
At 50,000 turns that was 2-3 s of a 12 s cold start. Reference counting still frees what dies meanwhile;
only cycles wait for the next collection, which runs as usual once the last pause ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """Keep the cyclic collector off inside the block (nested and concurrent blocks share one pause; the
    collector is enabled again when the last of them ends, if it was enabled when the first began)."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
