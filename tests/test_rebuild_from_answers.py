"""A memory rebuilt from the LLM answers it already holds asks the LLM nothing and stores the same records.

The answers of one build come back in whatever order the calls finish (here: the fake server holds back the
answers about chosen excerpts). Facts stored in that order made the event graph cluster around other seeds
the next time (two facts that are each other's only neighbour form one cluster, its excerpts in the order of
whichever seed came first), so a rebuild from a complete response cache wrote integration requests that
differed from the cached ones only in the order of their excerpts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.fake_server import FakeOpenAIServer

from anchormem.config import Settings
from anchormem.memory import Memory
from tests.maya import TopicEmbedder, all_sessions, recorded

MODEL = "recorded-model"
SLOW = 0.3  # seconds the server holds back an answer about a slow excerpt


def _settings(tmp_path: Path, name: str, url: str, cache: str) -> Settings:
    return Settings.load(
        env={},
        store=str(tmp_path / f"{name}.db"),
        cache=str(tmp_path / f"{cache}.llm-cache.db"),
        embed__backend="hash",
        llm__base_url=url,
        llm__model=MODEL,
        llm__concurrency=4,  # every context's extraction in flight at once: they finish in any order
        llm__max_retries=0,
    )


class Server:
    """The fake OpenAI-compatible server answering the recorded replies, slowly for the excerpts that hold
    any of ``slow``; it keeps the integration prompts it was sent."""

    def __init__(self, slow: tuple[str, ...]) -> None:
        self.slow = slow
        self.integrations: list[str] = []
        self.server = FakeOpenAIServer(reply=self._reply)

    def _reply(self, body: dict[str, Any]) -> str:
        content = body["messages"][-1]["content"]
        if "Key fact:" in content:
            self.integrations.append(content)
        elif any(phrase in content for phrase in self.slow):
            time.sleep(SLOW)
        return recorded(body["messages"])

    def __enter__(self) -> Server:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)


def _build(tmp_path: Path, name: str, slow: tuple[str, ...]) -> tuple[dict[str, Any], list[str]]:
    """The chat added live with its own response cache; what the memory holds, and the integration prompts."""
    with (
        Server(slow) as server,
        Memory(_settings(tmp_path, name, server.server.base_url, name), embedder=TopicEmbedder()) as mem,
    ):
        mem.add(all_sessions(), user_id="maya")
        return _records(mem), sorted(server.integrations)


def _records(mem: Memory) -> dict[str, Any]:
    return {
        "facts": mem.facts(user_id="maya"),  # in the order they were stored
        "events": sorted(mem.events(user_id="maya"), key=lambda e: e.id),
    }


@pytest.fixture
def built(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A build whose first session's excerpts are answered last."""
    records, _ = _build(tmp_path, "first", slow=("Lavapiés",))
    yield records


def test_builds_whose_answers_finish_in_other_orders_ask_the_same_and_store_the_same(tmp_path: Path) -> None:
    one, asked_one = _build(tmp_path, "one", slow=("Lavapiés",))  # the first session's excerpts answered last
    two, asked_two = _build(tmp_path, "two", slow=("Carabanchel", "Pico turned"))  # the later ones last
    assert one["events"] and any(e.supersedes for e in one["events"])
    assert asked_one == asked_two
    assert one == two


def test_a_rebuild_from_a_complete_cache_asks_nothing_and_stores_the_same(
    built: dict[str, Any], tmp_path: Path
) -> None:
    # the same cache, a new store, an LLM reached only through batch files: every request must have its answer
    with Memory(_settings(tmp_path, "again", "http://127.0.0.1:9", "first"), embedder=TopicEmbedder()) as mem:
        report = mem.add(all_sessions(), user_id="maya", batch=True)
        assert report.llm_deferred == 0
        assert mem.batch_export(tmp_path / "asked.jsonl") == []
        stats = mem.stats(user_id="maya")
        assert (stats.batch_extractions, stats.unlinked_facts) == (0, 0)
        assert _records(mem) == built
