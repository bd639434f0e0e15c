"""Questions about how things were before a change ("Where did the user live before Porto?"): the
question in the speaker's voice, the change found in the text, and the statements from before it put
first (hand-made chat)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.ingest.sources import parse_locomo
from anchormem.memory import Memory
from anchormem.search.rerank.earlier import change_time, earlier_statements, split_before, subject_query
from anchormem.search.rerank.recency import timeline
from anchormem.search.retrieve import query_vectors
from anchormem.text.voice import anchor_speaker, in_voice, named_speaker
from anchormem.wire.scopes import make_scope
from tests.test_query_recency import FILLER, chat, chat_memory, search, turn_id

# the user lives in Leeds, moves to Porto in June and talks about living in Porto from then on
MOVE: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "9:12 am on 8 January, 2024",
        [("user", "My flat is in Leeds, near the university."), ("assistant", "Leeds has a great market."), *FILLER],
    ),
    ("7:40 pm on 2 March, 2024", [*FILLER, ("user", "Any tips for a rainy weekend?"), ("assistant", "A museum.")]),
    (
        "10:18 am on 14 June, 2024",
        [*FILLER, ("user", "We moved to Porto, we live by the river now."), ("assistant", "Porto is lovely.")],
    ),
    (
        "8:02 pm on 9 August, 2024",
        [
            ("user", "Where should we live in Porto next year, Foz or Bonfim?"),
            ("assistant", "Foz, by the sea."),
            *FILLER,
        ],
    ),
    (
        "6:30 pm on 1 October, 2024",
        [
            *FILLER,
            ("user", "I love where we live in Porto, the tiles everywhere."),
            ("assistant", "They're beautiful."),
        ],
    ),
]
LEEDS = turn_id("My flat is in Leeds, near the university.", MOVE)
QUESTION = "Where did the user live before Porto?"


@pytest.fixture
def moved(settings: Settings) -> Iterator[Memory]:
    yield from chat_memory(settings, MOVE)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where did the user live before Porto?", ("Where did the user live?", "Porto")),
        ("What was her job before teaching", ("What was her job?", "teaching")),
        ("Which city was John in before traveling to Chicago?", ("Which city was John in?", "traveling to Chicago")),
        ("What did Maria do the Sunday before October 25, 2022?", None),  # a date, not a change
        ("What did Jolene finish the week before 23 January?", None),
        ("How long did they date before getting married?", None),  # a duration
        ("Where does the user live?", None),
        ("Before Porto, where did the user live?", None),  # nothing asked before the clause
    ],
)
def test_the_before_clause_names_the_change(question: str, expected: tuple[str, str] | None) -> None:
    assert split_before(question) == expected


@pytest.mark.parametrize(
    ("question", "speaker", "voiced"),
    [
        ("Does the user drink coffee?", "user", "Do I drink coffee?"),
        ("Where is the user living?", "user", "Where am I living?"),
        ("What is the user's job?", "user", "What is my job?"),
        ("What has Caroline painted?", "Caroline", "What have I painted?"),
        ("Is caroline still a counselor?", "Caroline", "Am I still a counselor?"),
    ],
)
def test_a_question_is_put_in_the_voice_of_the_speaker_it_names(question: str, speaker: str, voiced: str) -> None:
    assert in_voice(question, speaker) == voiced


def test_the_speaker_a_question_names() -> None:
    assert named_speaker("Does the user drink coffee?", {"user", "assistant"}) == "user"
    assert named_speaker("Where does Caroline's sister live?", {"Caroline", "Melanie"}) == "Caroline"
    assert named_speaker("Do Caroline and Melanie both paint?", {"Caroline", "Melanie"}) is None, "two named"
    assert named_speaker("Where do users live?", {"user"}) is None, "a word containing the name is not the name"
    assert anchor_speaker("user: I moved to Porto.") == "user"
    assert anchor_speaker("Caroline attended a support group.") is None, "an LLM fact names nobody up front"


def test_the_change_is_when_its_word_first_comes_up(moved: Memory) -> None:
    snap = moved.snapshot(make_scope("u", None, None))
    line = timeline(snap)
    june = min(line.session_time[r] for r, c in enumerate(snap.contexts) if c.session == "3")
    assert change_time(snap, "Porto") == june
    assert change_time(snap, "moving to Porto") == june, "the rarest word names the change"
    assert change_time(snap, "Lisbon") is None
    assert subject_query(snap, QUESTION) == "Where did I live?"
    assert subject_query(snap, "Where does the user live?") is None


def raised_by_the_stage(memory: Memory, question: str) -> list[tuple[str, ...]]:
    """The turn ids of the contexts the before-change stage picks for ``question`` (user "u")."""
    snap = memory.snapshot(make_scope("u", None, None))
    _, subject_vector = query_vectors(memory.embedder.embed, snap, question)
    rows = earlier_statements(snap, question, subject_vector, np.ones(len(snap.contexts)))
    return [snap.contexts[r].turn_ids for r in rows]


@pytest.mark.parametrize("contexts", [3, 10])
def test_the_statement_from_before_the_change_is_raised(moved: Memory, contexts: int) -> None:
    assert LEEDS not in search(moved, QUESTION, 3, recency=False).turn_ids, "the Porto contexts outscore it"
    picked = raised_by_the_stage(moved, QUESTION)
    assert any(LEEDS in turns for turns in picked), "the statement from before the change is the stage's pick"
    result = search(moved, QUESTION, contexts)
    for hit in result.contexts:  # raised within the bound, and only what the stage picked
        gain = dict(hit.adjustments).get("before-change", 0.0)
        assert gain in (0.0, 0.1) and (gain == 0.0 or hit.context.turn_ids in picked)
    assert len(result.contexts) <= contexts
    assert moved.search(QUESTION, user_id="u", max_contexts=contexts).turn_ids == result.turn_ids, "the product path"


def test_a_change_never_mentioned_leaves_the_question_alone(moved: Memory) -> None:
    question = "Where did the user live before Lisbon?"
    on, off = search(moved, question, 3), search(moved, question, 3, recency=False)
    assert [h.context.id for h in on.contexts] == [h.context.id for h in off.contexts]
    assert [h.score for h in on.contexts] == [h.score for h in off.contexts]


def test_only_the_named_speaker_s_statements_are_raised(settings: Settings) -> None:
    two: list[tuple[str, list[tuple[str, str]]]] = [
        (
            "9:12 am on 8 January, 2024",
            [
                ("Ben", "I did live in York, where I had a flat by the walls."),
                ("Ana", "What's a quick dinner with eggs?"),
                ("Ben", "A frittata: whisk eggs, add leftovers, bake ten minutes."),
                ("Ana", "Can you help me write an email asking for a day off?"),
                ("Ana", "My flat is in Leeds, I live near the university."),
            ],
        ),
        ("10:18 am on 14 June, 2024", [("Ana", "We moved to Porto, we live by the river now."), ("Ben", "Porto!")]),
        ("6:30 pm on 1 October, 2024", [("Ana", "I love where we live in Porto."), ("Ben", "Porto suits you.")]),
    ]
    sample = chat(two)
    sample["conversation"].update(speaker_a="Ana", speaker_b="Ben")
    memory = Memory(
        replace(settings, chunking=replace(settings.chunking, chat_chars=0)), embedder=HashEmbedder(dim=1024)
    )
    try:
        memory.add(parse_locomo([sample])[0], user_id="u")
        snap = memory.snapshot(make_scope("u", None, None))
        assert subject_query(snap, "Where did Ana live before Porto?") == "Where did I live?"
        picked = raised_by_the_stage(memory, "Where did Ana live before Porto?")
        assert any(turn_id("My flat is in Leeds, I live near the university.", two) in t for t in picked)
        york = turn_id("I did live in York, where I had a flat by the walls.", two)
        assert picked and picked[0] != (york,) and all(york not in t or len(t) > 1 for t in picked[:1])
    finally:
        memory.close()
