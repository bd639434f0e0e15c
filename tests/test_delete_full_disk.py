"""Forgetting works when the disk is full: measured on a real, small tmpfs filled to the last block.

A delete writes too (SQLite logs every changed and zeroed page in its WAL first), so on a full disk it used
to be rolled back and the words stayed. The store keeps a reserve next to its file
(:mod:`anchormem.store.reserve`); a delete that finds the disk full gives it back and runs again. When even
that is not enough, the error says plainly that nothing was deleted and how to free space.

Mounting a tmpfs needs root (and a kernel that allows it); elsewhere the tests are skipped with a loud reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.store import reserve

SKIP = "!!! full-disk delete tests SKIPPED: cannot mount a small tmpfs here ({why}); they need root"


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    where = tmp_path / "tiny"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip(SKIP.format(why="not root"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(SKIP.format(why=done.stderr.strip() or f"mount exited {done.returncode}"))
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(disk: Path) -> None:
    """Write zeros until the filesystem refuses another byte."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 16, 4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError:
                    break
    finally:
        os.close(fd)
    assert shutil.disk_usage(disk).free < 4096


def _memory(path: Path) -> Memory:
    return Memory(Settings.load(env={}, store=str(path), embed__backend="hash"), embedder=HashEmbedder())


def _sessions(mem: Memory, n: int) -> None:
    for s in range(1, n + 1):
        mem.add(
            [
                {
                    "speaker": "Ana",
                    "text": f"The code word of session {s} is zebra{s}x{i}, keep it safe.",
                    "session": str(s),
                }
                for i in range(40)
            ],
            user_id="u",
        )


def _grep(disk: Path, word: bytes) -> int:
    return sum(p.read_bytes().count(word) for p in disk.iterdir() if p.is_file() and p.name != "filler")


def test_a_delete_on_a_full_disk_succeeds_and_the_words_leave_the_file(tiny_disk: Path) -> None:
    store = tiny_disk / "memory.db"
    with _memory(store) as mem:
        _sessions(mem, 10)
    assert reserve.path_of(store).exists(), "the reserve is set aside when the store opens"
    assert _grep(tiny_disk, b"zebra3x") > 0
    _fill(tiny_disk)
    with _memory(store) as mem:
        report = mem.delete(user_id="u", session="3")
        assert report.turns == 40 and any("reserve" in note for note in report.notes), report
        assert "zebra3x" not in " ".join(t.text for t in mem.turns(user_id="u"))
        assert len(mem.turns(user_id="u")) == 9 * 40
    assert _grep(tiny_disk, b"zebra3x") == 0  # secure_delete zeroed the pages; the WAL was truncated


def test_when_the_reserve_is_not_enough_the_error_says_nothing_was_deleted(
    tiny_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tiny_disk / "memory.db"
    with _memory(store) as mem:
        _sessions(mem, 3)
    reserve.release(store)  # as if an earlier delete used it and the disk never had room again
    _fill(tiny_disk)
    code = main(["delete", "--user", "u", "--session", "2", "--store", str(store), "--embed-backend", "hash", "-q"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert "nothing was deleted" in err and "is full" in err and "Free space on that disk" in err
    (tiny_disk / "filler").unlink()
    with _memory(store) as mem:
        assert len(mem.turns(user_id="u")) == 3 * 40  # rolled back whole
        assert mem.delete(user_id="u", session="2").turns == 40  # and works once there is room
