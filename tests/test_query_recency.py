"""Statements that change over time: dates read from the stored text, questions about the present,
the latest statement put first, and returned statements compared by date (hand-made chat)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.ingest.sources import parse_locomo
from anchormem.memory import Memory
from anchormem.model import SearchResult
from anchormem.search.rerank.recency import timeline
from anchormem.search.rerank.tense import asks_present
from anchormem.search.retrieve import RECIPES, query_vectors, retrieve_with
from anchormem.text.dates import parse_when
from anchormem.wire.scopes import make_scope

FILLER = [
    ("user", "Can you help me write an email asking for a day off?"),
    ("assistant", "Of course: keep it short, give the date and offer cover."),
    ("user", "What's a quick dinner with eggs?"),
    ("assistant", "A frittata: whisk eggs, add leftovers, bake ten minutes."),
]
SESSIONS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "9:12 am on 8 January, 2024",
        [
            ("user", "I don't drink coffee, green tea is all I drink."),
            ("assistant", "Green tea instead of coffee is a gentle choice."),
            ("user", "I live in Leeds, close to the university."),
            ("assistant", "Leeds has a great market."),
            *FILLER,
        ],
    ),
    (
        "7:40 pm on 2 February, 2024",
        [
            *FILLER,
            ("user", "No coffee for me please, I never drink coffee."),
            ("assistant", "Noted, no coffee."),
            ("user", "Running routes near where I live in Leeds?"),
            ("assistant", "Try the canal towpath."),
        ],
    ),
    (
        "12:05 pm on 21 March, 2024",
        [
            ("user", "Find me a cafe with good tea, I don't drink coffee."),
            ("assistant", "Try the tea room on the corner; they skip coffee entirely."),
            *FILLER,
        ],
    ),
    ("8:30 pm on 30 April, 2024", [*FILLER, ("user", "What's the capital of Australia?"), ("assistant", "Canberra.")]),
    (
        "10:18 am on 14 June, 2024",
        [*FILLER, ("user", "We moved house to Porto, by the river."), ("assistant", "Porto!")],
    ),
    (
        "8:02 pm on 9 November, 2024",
        [*FILLER, ("user", "I started drinking coffee again, a flat white every morning."), ("assistant", "Enjoy it.")],
    ),
]


# the user moves from Leeds to Porto; the latest session only asks about living somewhere else (small talk)
MOVES: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "9:12 am on 8 January, 2024",
        [("user", "I live in Leeds, close to the university."), ("assistant", "Leeds has a great market."), *FILLER],
    ),
    (
        "7:40 pm on 2 March, 2024",
        [*FILLER, ("user", "Running routes near where I live in Leeds?"), ("assistant", "Try the canal towpath.")],
    ),
    (
        "10:18 am on 14 June, 2024",
        [*FILLER, ("user", "We moved to Porto in May, a flat where we live by the river."), ("assistant", "Porto!")],
    ),
    (
        "8:02 pm on 9 November, 2024",
        [*FILLER, ("user", "My cousin asks where to live in Lisbon, which area?"), ("assistant", "Alfama or Estrela.")],
    ),
]


# the user changes jobs; the two later sessions only ask about jobs (questions are not statements) and the
# assistant answers in the question's words
SMALL_TALK = [
    ("user", "Tell me a joke about penguins."),
    ("assistant", "Penguins wear tuxedos to every party."),
    ("user", "Name a good board game for four."),
    ("assistant", "Try Ticket to Ride."),
]
JOBS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "9:12 am on 8 January, 2024",
        [("user", "My job: I work as a nurse, night shifts on the ward."), ("assistant", "Demanding."), *SMALL_TALK],
    ),
    (
        "7:40 pm on 2 March, 2024",
        [*SMALL_TALK, ("user", "Nights again, my nurse job is exhausting."), ("assistant", "Rest when you can.")],
    ),
    (
        "10:18 am on 14 June, 2024",
        [*SMALL_TALK, ("user", "I handed in my notice; my new job is teaching yoga."), ("assistant", "A big change!")],
    ),
    (
        "8:02 pm on 9 September, 2024",
        [*SMALL_TALK, ("user", "Any tips for my brother's job interview?"), ("assistant", "Research the job first.")],
    ),
    (
        "6:30 pm on 20 November, 2024",
        [*SMALL_TALK, ("user", "Is a job fair worth a visit for my cousin?"), ("assistant", "A job fair is worth it.")],
    ),
]


def chat(sessions: list[tuple[str, list[tuple[str, str]]]] = SESSIONS) -> dict[str, Any]:
    conversation: dict[str, Any] = {"speaker_a": "user", "speaker_b": "assistant"}
    for n, (date, turns) in enumerate(sessions, 1):
        conversation[f"session_{n}_date_time"] = date
        conversation[f"session_{n}"] = [
            {"speaker": s, "dia_id": f"D{n}:{i + 1}", "text": t} for i, (s, t) in enumerate(turns)
        ]
    return {"sample_id": "changes", "conversation": conversation, "qa": []}


def turn_id(text: str, sessions: list[tuple[str, list[tuple[str, str]]]] = SESSIONS) -> str:
    for n, (_, turns) in enumerate(sessions, 1):
        for i, (_, said) in enumerate(turns):
            if said == text:
                return f"D{n}:{i + 1}"
    raise KeyError(text)


NEWEST_COFFEE = turn_id("I started drinking coffee again, a flat white every morning.")
NEWEST_HOME = turn_id("We moved house to Porto, by the river.")
MOVED = turn_id("We moved to Porto in May, a flat where we live by the river.", MOVES)
NURSE = turn_id("Nights again, my nurse job is exhausting.", JOBS)
NEW_JOB = turn_id("I handed in my notice; my new job is teaching yoga.", JOBS)


def chat_memory(settings: Settings, sessions: list[tuple[str, list[tuple[str, str]]]]) -> Iterator[Memory]:
    """A memory of user "u" holding the hand-made chat ``sessions`` (a fixture body)."""
    memory = Memory(settings, embedder=HashEmbedder(dim=1024))  # wide: few accidental collisions
    memory.add(parse_locomo([chat(sessions)])[0], user_id="u")
    yield memory
    memory.close()


@pytest.fixture
def changes(settings: Settings) -> Iterator[Memory]:
    yield from chat_memory(settings, SESSIONS)


@pytest.fixture
def moves(settings: Settings) -> Iterator[Memory]:
    yield from chat_memory(settings, MOVES)


@pytest.fixture
def jobs(settings: Settings) -> Iterator[Memory]:
    yield from chat_memory(settings, JOBS)


def search(memory: Memory, query: str, contexts: int, recency: bool = True) -> SearchResult:
    """User "u"'s search as the product runs it (the question's own subject embedded too), with the
    recency rules on or off."""
    snap = memory.snapshot(make_scope("u", None, None))
    settings = replace(memory.settings.retrieval, max_contexts=contexts)
    if not recency:  # the stages that read time left out; the others (who speaks) stay
        settings = replace(settings, rerankers=tuple(s for s in settings.rerankers if s in ("own-words", "statements")))
    vector, subject_vector = query_vectors(memory.embedder.embed, snap, query)
    return retrieve_with(snap, query, vector, settings, RECIPES["anchormem"], subject_vector)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
        ("12:10 am on 3 Jan, 2024", datetime(2024, 1, 3, 0, 10)),
        ("2024-03-23T09:30:00+01:00", datetime(2024, 3, 23, 9, 30)),
        ("2024-03-23", datetime(2024, 3, 23)),
        ("29.12.2023, 22:42:04", datetime(2023, 12, 29, 22, 42, 4)),
        ("March 23, 2024", datetime(2024, 3, 23)),
        ("23rd of March 2024", datetime(2024, 3, 23)),
        ("sometime last year", None),
        ("31 February, 2024", None),
        (None, None),
    ],
)
def test_dates_are_read_in_their_common_spellings(text: str | None, expected: datetime | None) -> None:
    assert parse_when(text) == expected


@pytest.mark.parametrize(
    "question",
    [
        "Does the user drink coffee?",
        "Where does the user live now?",
        "What is the user's job?",
        "Is the user vegetarian?",
        "Who is she dating these days?",
        "Can the user run?",
        "Which gym does the user go to?",
        "Does the user have a pet?",
        "Does she have any kids?",
    ],
)
def test_questions_about_the_present(question: str) -> None:
    assert asks_present(question)


@pytest.mark.parametrize(
    "question",
    [
        "When did the user move to Porto?",
        "Where did the user live before moving?",
        "What did the user drink at first?",
        "What books has Melanie read?",
        "What shelters does Maria volunteer at?",
        "How many hikes has Joanna been on?",
        "How does Nate describe the turtles?",
        "What did Maria start recently, as mentioned on 3 June, 2023?",
        "Tell me about the trip",
        "Has Kate bought a car?",
    ],
)
def test_questions_not_about_the_present(question: str) -> None:
    assert not asks_present(question)


def test_questions_about_the_past_are_left_alone(changes: Memory) -> None:
    for question in ("Where did the user live in January?", "When did the user stop drinking coffee?"):
        on, off = search(changes, question, 3), search(changes, question, 3, recency=False)
        assert [h.context.id for h in on.contexts] == [h.context.id for h in off.contexts]
        assert [h.score for h in on.contexts] == [h.score for h in off.contexts]


def test_sessions_of_sub_scopes_keep_their_own_dates_in_a_user_search(settings: Settings) -> None:
    """An agent's session "1" is not the user's session "1": each keeps its own date in a search of the
    user that covers the agent."""
    memory = Memory(settings, embedder=HashEmbedder(dim=1024))
    try:
        memory.add(parse_locomo([chat(SESSIONS[:1])])[0], user_id="u")
        memory.add(parse_locomo([chat(SESSIONS[-1:])])[0], user_id="u", agent_id="coach")
        result = memory.search("Does the user drink coffee?", user_id="u")
        scopes = {h.scope.agent_id if h.scope else None for h in result.contexts}
        assert scopes == {None, "coach"}
        snap = memory._snapshots.covering(make_scope("u", None, None), include_subscopes=True)
        assert snap is not None
        line = timeline(snap)
        times = {snap.scope_of(r).agent_id: line.session_time[r] for r in range(len(snap.contexts))}  # type: ignore[union-attr]
        assert times["coach"] > times[None], "the agent's session 1 is November, the user's January"
    finally:
        memory.close()
