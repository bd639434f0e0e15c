"""A delete when the disk is full: erasure must work exactly when space has run out.

A delete writes before it can free anything (SQLite's journal, the scrub). Each SQLite store keeps a reserve
file beside it (``store.reserve``): a delete that fails for lack of space gives the reserve back to the
filesystem and runs once more; if that is still not enough, nothing was deleted (the transaction rolled back)
and the error says so, and how to free space.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from anchormem.errors import StoreFullError
from anchormem.model import DeleteReport
from anchormem.store import reserve


def delete_on_full_disk(file: Path | None, delete: Callable[[], DeleteReport]) -> DeleteReport:
    """``delete()``; when the disk is full, once more after releasing the store's reserve."""
    try:
        return delete()
    except StoreFullError as full:
        freed = reserve.release(file) if file is not None else 0
        if not freed:
            raise StoreFullError(nothing_deleted(file)) from full
    try:  # the reserve is back on the filesystem: the same delete again
        report = delete()
    except StoreFullError as again:
        raise StoreFullError(nothing_deleted(file)) from again
    report.notes.append(
        f"the disk was full: the delete used the store's reserve ({freed // 1024} KiB), which is set aside "
        "again when the store next opens with room on the disk"
    )
    return report


def nothing_deleted(file: Path | None) -> str:
    """What a delete that a full disk rolled back tells the user."""
    where = f"the disk holding {file}" if file is not None else "the database server's disk"
    free = ""
    if file is not None:
        with suppress(OSError):
            free = f" ({shutil.disk_usage(file.parent).free // 1024} KiB free)"
    return (
        f"nothing was deleted: {where} is full{free}, so the delete was rolled back and the words are still "
        "stored. Free space on that disk (remove other files there, or move the store elsewhere with "
        "anchormem export and import), then run the same delete again"
    )
