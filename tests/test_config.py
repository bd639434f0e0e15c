from __future__ import annotations

from pathlib import Path

import pytest

from anchormem.config import ChunkSettings, Settings
from anchormem.errors import ConfigError


def test_defaults_need_no_environment() -> None:
    s = Settings.load(env={})
    assert s.llm is None and s.embed.backend == "minilm"
    assert (s.graph.tau, s.graph.n_neighbors, s.retrieval.k_facts, s.retrieval.max_contexts) == (0.85, 3, 10, 16)


def test_precedence_file_then_env_then_overrides(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'store = "/from/file.db"\n[llm]\nbase_url = "http://file/v1"\nmodel = "m-file"\n'
        "concurrency = 2\n[graph]\ntau = 0.9\n"
    )
    env = {"ANCHORMEM_CONFIG": str(cfg), "ANCHORMEM_LLM_MODEL": "m-env", "OPENAI_API_KEY": "k"}
    s = Settings.load(env=env, store="/from/arg.db")
    assert s.store == "/from/arg.db" and s.graph.tau == 0.9
    assert s.llm is not None and (s.llm.base_url, s.llm.model, s.llm.api_key, s.llm.concurrency) == (
        "http://file/v1",
        "m-env",
        "k",
        2,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("store = ", "not valid TOML"),
        ("bogus = 1", "unknown setting"),
        ("[graph]\ntau = 1.5", "tau must lie"),
        ("[graph]\nn_neighbors = 'x'", "expected a number"),
        ("[llm]\nmodel = 'only-model'", "needs both"),
        ("[retrieval]\nwhat = 1", r"unknown setting\(s\) in \[retrieval\]"),
    ],
)
def test_bad_config_files(tmp_path: Path, text: str, message: str) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError, match=message):
        Settings.load(config_file=cfg, env={})


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        Settings.load(config_file=tmp_path / "none.toml", env={})


def test_server_store_urls_are_kept_and_the_cache_goes_home() -> None:
    s = Settings.load(env={}, store="postgresql:///memdb")
    assert s.store_is_url and s.store_location == "postgresql:///memdb"
    assert s.cache_path.name == "llm-cache.db" and "://" not in str(s.cache_path)
    local = Settings.load(env={}, store="sqlite:////tmp/x.db")  # four slashes: an absolute path
    assert not local.store_is_url and local.store_location == "/tmp/x.db"
    assert local.cache_path == Path("/tmp/x.llm-cache.db")


def test_chunking_section_selects_the_papers_windows(tmp_path: Path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text("[chunking]\nchat_chars = 0\n")
    assert Settings.load(cfg, env={}).chunking == ChunkSettings.paper()
    assert Settings.load(env={}).chunking.chat_chars > 0  # chats are cut by length unless asked
    cfg.write_text("[chunking]\nchat_chars = -1\n")
    with pytest.raises(ConfigError, match="chat_chars"):
        Settings.load(cfg, env={})
