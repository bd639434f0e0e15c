"""Facts an LLM extracts are checked against their context: names, numbers and most words must occur
there. Recorded responses of a small model that copied the prompt's example ("Anna adopted a puppy named
Max") into an excerpt about something else are dropped and counted in stats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError
from anchormem.ingest.grounding import check, ground
from anchormem.llm.fake import FakeLLM
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from tests.conftest import event_responder

CONTEXT = (
    "DATE: 9:30 am on 23 March, 2024\n"
    'Priya said, "I adopted an orange tabby yesterday, his name is Biscuit."\n'
    'Tomás said, "Biscuit! How is he settling in? I ran 12 km this morning."'
)
HALLUCINATED = [  # what the small real server answered: the prompt's example, not the excerpt
    "Anna adopted a puppy named Max on 2 June 2023.",
    "Ben is going to run the Boston marathon in July 2023.",
]
GROUNDED = [
    "Priya adopted an orange tabby cat named Biscuit on 22 March 2024.",
    "Tomás asked how Biscuit is settling in.",
    "Tomás ran 12 km on 23 March 2024.",
]


@pytest.mark.parametrize("fact", GROUNDED)
def test_facts_the_context_holds_pass(fact: str) -> None:
    assert check(fact, CONTEXT).grounded, check(fact, CONTEXT).reason


@pytest.mark.parametrize(
    ("fact", "why"),
    [
        (HALLUCINATED[0], "names not in the context: Anna, Max"),
        (HALLUCINATED[1], "names not in the context: Ben, Boston"),
        ("Tomás ran 42 km this morning.", "numbers not in the context: 42"),
        ("Priya bought a vintage piano for the apartment.", "of its words are in the context"),
    ],
)
def test_facts_the_context_does_not_hold_fail(fact: str, why: str) -> None:
    verdict = check(fact, CONTEXT)
    assert not verdict.grounded and why in verdict.reason, verdict


def test_dates_made_from_relative_times_pass() -> None:
    assert check("Priya adopted Biscuit in 2023.", CONTEXT).grounded  # "last year", resolved by the DATE line
    assert not check("Priya adopted Biscuit in 1987.", CONTEXT).grounded


def test_ground_drops_or_keeps() -> None:
    texts = [*GROUNDED, *HALLUCINATED]
    assert ground(texts, CONTEXT) == (GROUNDED, 2)
    assert ground(texts, CONTEXT, "keep") == (texts, 2)


def _recorded(messages: list[Message]) -> str:
    """Recorded answers of a model that follows the prompt's example instead of the excerpt."""
    content = messages[-1]["content"]
    if "Excerpt:" in content:
        excerpt = content.rsplit("Excerpt:", 1)[-1]
        said = [line.split(" said, ", 1)[0] for line in excerpt.splitlines() if " said, " in line]
        return json.dumps([*HALLUCINATED, f"{said[0]} talked about Biscuit the tabby."])
    return event_responder(messages)


def _settings(tmp_path: Path, **extra: str) -> Settings:
    return Settings.load(
        env={},
        store=str(tmp_path / "m.db"),
        embed__backend="hash",
        llm__base_url="http://unused.invalid/v1",
        llm__model="fake-llm",
        **extra,
    )


MESSAGES = [
    {"speaker": "Priya", "text": "I adopted an orange tabby yesterday, his name is Biscuit.", "session": "1"},
    {"speaker": "Tomás", "text": "Biscuit! How is he settling in?", "session": "1"},
]


def test_hallucinated_facts_are_dropped_and_counted(tmp_path: Path) -> None:
    with Memory(_settings(tmp_path), embedder=HashEmbedder(), llm=FakeLLM(_recorded)) as mem:
        report = mem.add(MESSAGES, user_id="priya")
        facts = [f.text for f in mem.facts(user_id="priya")]
        stats = mem.stats(user_id="priya")
        exported = list(mem.export(user_id="priya"))
    assert report.facts_ungrounded == 2 and stats.ungrounded_facts == 2
    assert facts == ["Priya talked about Biscuit the tabby."]
    assert not any("Anna" in f or "Boston" in f for f in facts)
    assert [r["ungrounded"] for r in exported if r["type"] == "context"] == [2]
    with Memory(_settings(tmp_path / "copy"), embedder=HashEmbedder()) as copy:
        (tmp_path / "copy").mkdir(exist_ok=True)
        copy.import_records(exported)
        assert copy.stats(user_id="priya").ungrounded_facts == 2


def test_keep_mode_keeps_them_and_still_counts(tmp_path: Path) -> None:
    settings = _settings(tmp_path, llm__ungrounded_facts="keep")
    with Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(_recorded)) as mem:
        mem.add(MESSAGES, user_id="priya")
        assert len(mem.facts(user_id="priya")) == 3 and mem.stats(user_id="priya").ungrounded_facts == 2


def test_an_unknown_mode_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ungrounded_facts"):
        _settings(tmp_path, llm__ungrounded_facts="flag")
