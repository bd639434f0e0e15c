"""Opening a store from a location: a path, ``sqlite:///``, ``postgresql://`` — and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchormem.config import DEFAULT_HOME, Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError, StoreError
from anchormem.memory import Memory
from anchormem.model import Scope
from anchormem.store.factory import open_store
from anchormem.store.sqlite import SQLiteStore


@pytest.mark.parametrize("location", ["mysql://u@h/db", "mysql:/u@h/db", "sqlite://relative.db", "redis://h:6379/0"])
def test_an_unknown_url_scheme_is_a_config_error(
    location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="unknown store URL scheme"):
        open_store(location)
    assert list(tmp_path.iterdir()) == []  # no SQLite file, no folder


def test_memory_with_an_unknown_scheme_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings.load(env={}, store="mysql://u@h/db", embed__backend="hash")
    with pytest.raises(ConfigError), Memory(settings, embedder=HashEmbedder()) as mem:
        mem.search("anything", user_id="ana")
    assert not (tmp_path / "mysql:").exists()


def test_a_mistyped_folder_is_not_created(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        open_store(str(tmp_path / "memorys" / "memory.db"))
    assert not (tmp_path / "memorys").exists()


def test_the_default_home_is_created() -> None:
    home = DEFAULT_HOME.expanduser()  # under the test's own HOME (see conftest)
    assert not home.exists()
    store = open_store(str(home / "memory.db"))
    store.close()
    assert (home / "memory.db").is_file()


def test_paths_and_sqlite_urls_open_sqlite(tmp_path: Path) -> None:
    for location in (str(tmp_path / "a.db"), f"sqlite:///{tmp_path / 'b.db'}"):
        store = open_store(location)
        assert isinstance(store, SQLiteStore) and store.version(Scope("x")) == 0
        store.close()
    assert {p.name for p in tmp_path.glob("*.db")} == {"a.db", "b.db"}
