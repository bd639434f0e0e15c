"""The tests' embedded PostgreSQL servers. The helpers live in ``bench/pg_server.py``, which the benchmarks
share (a benchmark never imports the tests); this module names what the tests use."""

from __future__ import annotations

from bench.pg_server import SKIP_REASON, START_TIMEOUT, PgServer, _patient_pg_ctl, start_server, start_standby

__all__ = ["SKIP_REASON", "START_TIMEOUT", "PgServer", "_patient_pg_ctl", "start_server", "start_standby"]
