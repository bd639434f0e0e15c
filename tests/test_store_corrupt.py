"""A corrupt SQLite store fails every command with one line on stderr and exit 1 (never a traceback), and
``anchormem maintenance check`` reports what is wrong.

SQLite puts what it could not parse into its message ("malformed database schema (x) - unrecognized token:
…"): on a damaged file that is garbage, which Python's sqlite3 cannot decode and raises as a
``UnicodeDecodeError`` instead of an ``sqlite3.Error``."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import StoreError
from anchormem.eval.locomo import add_locomo
from anchormem.memory import Memory
from anchormem.store.sqlite import SQLiteStore
from tests.fixtures import write_locomo

COMMANDS = [
    ["stats", "--user", "u"],
    ["search", "Ana's dog", "--user", "u"],
    ["export", "--user", "u"],
    ["add", "--message", "I adopted a cat", "--user", "u"],
    ["list", "facts", "--user", "u"],
    ["users"],
    ["history", "--user", "u"],
    ["delete", "--user", "u", "--session", "1"],
    ["get", "D1:1", "--user", "u"],
    ["update", "D1:1", "I adopted a cat.", "--user", "u"],
    ["answer", "Who is Pico?", "--user", "u"],
    ["maintenance", "check"],
    ["maintenance", "scrub"],
]


def _run(capsys: pytest.CaptureFixture[str], argv: list[str], store: Path) -> tuple[int, str, str]:
    code = main([*argv, "--store", str(store), "--embed-backend", "hash", "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def good_store(tmp_path: Path) -> Path:
    path = tmp_path / "good.db"
    with Memory(Settings.load(env={}, store=str(path), embed__backend="hash"), embedder=HashEmbedder()) as mem:
        add_locomo(mem, write_locomo(tmp_path / "c.json"), sample="conv-1", user_id="u")
    return path


def _undecodable_schema(good: Path, to: Path) -> Path:
    """A copy whose schema text holds bytes that are not UTF-8 (as random damage to page 1 leaves it)."""
    shutil.copy(good, to)
    db = sqlite3.connect(to)
    db.execute("PRAGMA writable_schema = ON")
    db.execute(
        "UPDATE sqlite_master SET sql = CAST(X'435245415445205441424c452078b1b2f3' AS TEXT) WHERE name = 'turns'"
    )
    db.commit()
    db.close()
    return to


def test_undecodable_sqlite_message_is_a_store_error(good_store: Path, tmp_path: Path) -> None:
    bad = _undecodable_schema(good_store, tmp_path / "bad.db")
    with pytest.raises(StoreError, match="malformed database schema") as err:
        SQLiteStore(bad).close()
    assert "codec" not in str(err.value) and "maintenance check" in str(err.value)


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_command_on_an_undecodable_store_fails_in_one_line(
    capsys: pytest.CaptureFixture[str], good_store: Path, tmp_path: Path, argv: list[str]
) -> None:
    bad = _undecodable_schema(good_store, tmp_path / "bad.db")
    code, out, err = _run(capsys, argv, bad)
    assert code == 1, (out, err)
    assert err.startswith("anchormem: error: ") and err.count("\n") == 1, err
    assert "malformed" in err or argv[0] == "answer"  # answer without an LLM stops before opening the store


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_servers_on_an_undecodable_store_say_why_they_cannot_start(
    capsys: pytest.CaptureFixture[str], good_store: Path, tmp_path: Path, command: str
) -> None:
    keys = tmp_path / "keys.json"
    assert main(["serve-key", "add", "--keys", str(keys), "--user", "u"]) == 0
    capsys.readouterr()
    bad = _undecodable_schema(good_store, tmp_path / "bad.db")
    argv = ["serve", "--keys", str(keys), "--port", "1"] if command == "serve" else ["mcp", "--user", "u"]
    code, out, err = _run(capsys, argv, bad)
    assert code == 1 and out == "", (out, err)
    assert err.startswith("anchormem: error: cannot open store") and "malformed" in err and err.count("\n") == 1


def _flipped(good: Path, to: Path, seed: int) -> Path:
    """A copy with 40 random bytes past the 100-byte header overwritten (the file's header left intact)."""
    data = bytearray(good.read_bytes())
    rng = random.Random(seed)
    for _ in range(40):
        data[rng.randrange(100, len(data))] = rng.randrange(256)
    to.write_bytes(bytes(data))
    return to


def test_randomly_damaged_copies_never_crash(
    capsys: pytest.CaptureFixture[str], good_store: Path, tmp_path: Path
) -> None:
    failed = 0
    for seed in range(8):
        for argv in COMMANDS:
            bad = _flipped(good_store, tmp_path / f"bad-{seed}.db", seed)
            for tail in ("-wal", "-shm"):
                Path(str(bad) + tail).unlink(missing_ok=True)
            code, _out, err = _run(capsys, argv, bad)  # an exception other than ours fails the test here
            assert code in (0, 1), (seed, argv, err)
            if code == 1:
                failed += 1
                assert err.startswith("anchormem: error: ") and err.count("\n") == 1, (seed, argv, err)
    assert failed, "no copy was damaged enough to fail: the test checks nothing"


def test_maintenance_check_reports_a_healthy_store(capsys: pytest.CaptureFixture[str], good_store: Path) -> None:
    code, out, err = _run(capsys, ["maintenance", "check"], good_store)
    assert code == 0 and err == "", err
    assert out.startswith("ok: ") and "integrity_check" in out


def test_maintenance_check_finds_broken_invariants(capsys: pytest.CaptureFixture[str], good_store: Path) -> None:
    db = sqlite3.connect(good_store)
    db.execute("PRAGMA foreign_keys = OFF")
    (context_id,) = db.execute("SELECT context_id FROM facts LIMIT 1").fetchone()
    db.execute("DELETE FROM contexts WHERE id = ?", (context_id,))  # its facts are now orphans
    db.commit()
    db.close()
    code, out, err = _run(capsys, ["maintenance", "check"], good_store)
    assert code == 1 and out.startswith("problems: "), (out, err)
    assert "facts whose context is missing" in out
    assert "anchormem: error: " in err and err.count("\n") == 1


def test_maintenance_check_on_a_damaged_file(
    capsys: pytest.CaptureFixture[str], good_store: Path, tmp_path: Path
) -> None:
    bad = _undecodable_schema(good_store, tmp_path / "bad.db")
    code, _out, err = _run(capsys, ["maintenance", "check"], bad)
    assert code == 1 and "malformed" in err and err.count("\n") == 1
