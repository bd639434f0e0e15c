"""On the LLM path a context keeps its speakers' own sentences beside the LLM's facts (source ``provisional``):
searchable, shown by the excerpt, never part of an event; links are still read for the written facts.
The LLM's answers are recorded (:mod:`tests.maya`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.maya import MOVE, TopicEmbedder, recorded


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    settings = Settings.load(env={}, store=str(tmp_path / "mem.db"), embed__backend="hash")
    with Memory(settings, embedder=TopicEmbedder(), llm=FakeLLM(recorded, model="recorded-llm")) as memory:
        yield memory


def test_a_context_holds_the_llm_facts_and_its_speakers_own_sentences(mem: Memory) -> None:
    report = mem.add(MOVE, user_id="maya")
    by_context: dict[str, dict[str, set[str]]] = {}
    for f in mem.facts(user_id="maya"):
        by_context.setdefault(f.context_id, {}).setdefault(f.source, set()).add(f.text)
    assert sorted(by_context.values(), key=str) == sorted(
        [
            {"llm": {"Maya lives in Lavapiés."}, "provisional": {"Maya: I live in Lavapiés with my partner."}},
            {
                "llm": {"Maya moved to Carabanchel in September 2024."},
                "provisional": {"Maya: We finally moved to Carabanchel last week!"},
            },
        ],
        key=str,
    )
    assert report.extractions_failed == 0 and mem.stats(user_id="maya").batch_extractions == 0
    written = {f.id for f in mem.facts(user_id="maya") if not f.verbatim}
    [event] = mem.events(user_id="maya")
    assert set(event.fact_ids) <= written  # no event is built on the speakers' sentences


def test_a_question_in_the_speakers_words_finds_their_sentence(mem: Memory) -> None:
    mem.add(MOVE, user_id="maya")
    result = mem.search("Who does Maya live with? Her partner?", user_id="maya")
    best = result.contexts[0]
    assert "partner" in best.context.text
    assert best.anchors[0].fact.text == "Maya: I live in Lavapiés with my partner."  # the LLM's fact left it out
    assert "with my partner" in result.prompt(max_chars=4000).text


def test_marks_come_from_the_written_facts_when_a_sentence_is_the_best_anchor(mem: Memory) -> None:
    mem.add(MOVE, user_id="maya")
    result = mem.search("Where does Maya live with her partner?", user_id="maya")
    hits = {h.context.text.split('"')[1]: h for h in result.contexts}
    old = hits["I live in Lavapiés with my partner."]
    assert old.anchors[0].fact.verbatim  # the sentence is closer to the query than "Maya lives in Lavapiés."
    new = hits["We finally moved to Carabanchel last week!"]
    assert (old.latest, old.newer) == (False, (new.context.id,)) and new.latest is True
