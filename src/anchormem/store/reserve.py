"""Room set aside so that forgetting works on a full disk.

A delete writes too: SQLite logs every page it changes (and ``secure_delete`` zeroes) in the WAL before it
checkpoints, so on a full disk a delete is rolled back and the words stay. An SQLite store therefore keeps
a reserve next to its file (``memory.db.reserve``, real blocks: a quarter of the store's size, at least
1 MiB, at most 64 MiB), made when the store opens and the disk has twice that free. A delete that finds the
disk full gives the reserve back to the filesystem and runs again; the reserve is made anew once there is
room (at the next open). Only deletes use it: an add on a full disk still fails, so the reserve is there
when the user needs to forget.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SUFFIX = ".reserve"
LEAST = 1 << 20
MOST = 64 << 20
ROOM_FACTOR = 2  # the reserve is made only when the disk has this many times its size free


def path_of(store: str | Path) -> Path:
    return Path(str(store) + SUFFIX)


def wanted(store: str | Path) -> int:
    """The reserve a store of this size keeps."""
    try:
        size = Path(store).stat().st_size
    except OSError:
        size = 0
    return max(LEAST, min(MOST, size // 4))


def ensure(store: str | Path) -> bool:
    """Make (or grow) the store's reserve when the disk has room for it; True when it is in place."""
    target, size = path_of(store), wanted(store)
    try:
        if target.exists() and target.stat().st_size >= size:
            return True
        if shutil.disk_usage(target.parent).free < ROOM_FACTOR * size:
            return False
        partial = target.with_name(target.name + ".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            if hasattr(os, "posix_fallocate"):
                os.posix_fallocate(fd, 0, size)  # real blocks, not a sparse file
            else:  # pragma: no cover - not POSIX
                os.write(fd, b"\0" * size)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(partial, target)
        return True
    except OSError:
        return False


def release(store: str | Path) -> int:
    """Give the reserve back to the filesystem; the bytes freed (0 when there was none)."""
    target = path_of(store)
    try:
        size = target.stat().st_size
        target.unlink()
    except OSError:
        return 0
    return size
