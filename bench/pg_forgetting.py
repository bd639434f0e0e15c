"""Measure what a PostgreSQL store keeps of deleted words on disk: N secrets added, their sessions
deleted, then ``anchormem maintenance scrub``; count the secrets found in the database's table files
and in pg_wal at each step (after a CHECKPOINT). Needs a local server whose data folder this process
may read, and a superuser URL of an empty database (it is written to):

    PYTHONPATH=src python bench/pg_forgetting.py postgresql://postgres@/forget?host=/socket/dir [N]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import psycopg

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory


def _files(url: str) -> tuple[bytes, bytes]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data = Path(conn.execute("SHOW data_directory").fetchone()[0])
        oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]
    tables = b"".join(f.read_bytes() for f in (data / "base" / str(oid)).iterdir() if f.is_file())
    wal = b"".join(f.read_bytes() for f in (data / "pg_wal").iterdir() if f.is_file())
    return tables, wal


def _count(secrets: list[str], blob: bytes) -> int:
    return sum(s.encode() in blob for s in secrets)


def run(url: str, n: int, folder: Path) -> list[tuple[str, int, int]]:
    """Rows of (step, secrets in the table files, secrets in pg_wal)."""
    secrets = [f"secret-{i}-{i * 7919:06d}-walrus" for i in range(n)]
    cfg = Settings.load(env={}, store=url, cache=str(folder / "cache.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        for i, s in enumerate(secrets):
            mem.add([{"speaker": "Ana", "session": f"s{i}", "text": f"my code is {s}"}], user_id="ana")
        mem.add([{"speaker": "Ana", "session": "keep", "text": "my cat Tom likes fish"}], user_id="ana")
        blobs = [("added", *_files(url))]
        for i in range(n):
            mem.delete(user_id="ana", session=f"s{i}")
        blobs.append(("deleted (plain VACUUM)", *_files(url)))
    main(["maintenance", "scrub", "--store", url, "--embed-backend", "hash"])
    blobs.append(("after maintenance scrub", *_files(url)))
    return [(step, _count(secrets, tables), _count(secrets, wal)) for step, tables, wal in blobs]


def report(rows: list[tuple[str, int, int]], n: int) -> str:
    lines = [f"{'step':<26} {'secrets in table files':>22} {'secrets in pg_wal':>18}"]
    lines += [f"{step:<26} {tables:>19}/{n} {wal:>15}/{n}" for step, tables, wal in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    print(report(run(sys.argv[1], count, Path(tempfile.mkdtemp(prefix="pgforget-"))), count))
