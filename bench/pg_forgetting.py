"""Measure what a PostgreSQL store keeps of deleted words on disk: N secrets added, their sessions
deleted, then ``anchormem maintenance scrub``; count the secrets found in the database's table files
and in pg_wal at each step (after a CHECKPOINT). Starts its own server (tests/pg_server.py).

    PYTHONPATH=src:. python bench/pg_forgetting.py [N]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import psycopg
from tests.pg_server import start_server

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


def run(n: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pgforget-"))
    server = start_server(folder)
    try:
        url = server.new_database("forget")
        secrets = [f"secret-{i}-{i * 7919:06d}-walrus" for i in range(n)]
        cfg = Settings.load(env={}, store=url, cache=str(folder / "cache.db"), embed__backend="hash")
        with Memory(cfg, embedder=HashEmbedder()) as mem:
            for i, s in enumerate(secrets):
                mem.add([{"speaker": "Ana", "session": f"s{i}", "text": f"my code is {s}"}], user_id="ana")
            mem.add([{"speaker": "Ana", "session": "keep", "text": "my cat Tom likes fish"}], user_id="ana")
            rows = [("added", *_files(url))]
            for i in range(n):
                mem.delete(user_id="ana", session=f"s{i}")
            rows.append(("deleted (plain VACUUM)", *_files(url)))
        main(["maintenance", "scrub", "--store", url, "--embed-backend", "hash", "--quiet"])
        rows.append(("after maintenance scrub", *_files(url)))
        print(f"{'step':<26} {'secrets in table files':>22} {'secrets in pg_wal':>18}")
        for step, tables, wal in rows:
            print(f"{step:<26} {_count(secrets, tables):>19}/{n} {_count(secrets, wal):>15}/{n}")
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
