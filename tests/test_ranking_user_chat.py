"""An ordinary user/assistant chat as agent builders send it (``role``/``content``, ``created_at``, ``session``),
searched with the real MiniLM embedder: the answer's context first, and no answer marked superseded by an
unrelated later session (issue: "What is the user's job?" had the June matcha session first, marked latest,
and the job change marked earlier)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem import Memory, Settings

SESSIONS = [
    (
        "2024-01-09T19:05:00",
        [
            ("user", "Can you suggest a weekly grocery list? I live in Bristol and shop at the market on Saturdays."),
            (
                "assistant",
                "Here is a simple list built around a Saturday market trip: vegetables, eggs, bread, cheese.",
            ),
            ("user", "I'm a junior accountant at a small firm, so weekday dinners need to be quick."),
            ("assistant", "Then batch-cook on Sunday: a big pot of chilli and a tray of roast vegetables."),
        ],
    ),
    (
        "2024-02-14T08:30:00",
        [
            ("user", "My friend Sam's dog is called Pepper, a border collie. What treats are safe for dogs?"),
            ("assistant", "Plain carrots, apple slices without seeds, and unsalted peanut butter are all fine."),
            ("user", "I have two coffees every morning before work, is that too much?"),
            ("assistant", "Two cups is within the usual advice for adults."),
        ],
    ),
    (
        "2024-03-20T18:45:00",
        [
            ("user", "I just accepted a job offer: I'll be a data analyst at a renewable energy startup."),
            ("assistant", "Congratulations! A data analyst role at a startup is a big step."),
            ("user", "Can you help me write a short resignation email to my manager?"),
            ("assistant", "Dear Alex, I am writing to let you know I will leave the firm at the end of April."),
        ],
    ),
    (
        "2024-04-28T11:10:00",
        [
            ("user", "We finally moved: the new flat is in Manchester, near Piccadilly station."),
            ("assistant", "Welcome to Manchester! The area around Piccadilly has great transport links."),
            ("user", "Any tips for unpacking without losing my mind?"),
            ("assistant", "Unpack the kitchen and the bed first, then one room a day."),
        ],
    ),
    (
        "2024-05-16T20:00:00",
        [
            ("user", "I went vegan last week. Can you suggest a high-protein breakfast?"),
            ("assistant", "Tofu scramble, oats with soy milk and peanut butter, or a chickpea omelette."),
            ("user", "What about a quick lunch I can take to the office?"),
            ("assistant", "A lentil salad with roasted peppers keeps well in a lunch box."),
        ],
    ),
    (
        "2024-06-22T09:15:00",
        [
            ("user", "I swapped coffee for matcha in the mornings. How do I whisk it properly?"),
            ("assistant", "Sift a teaspoon of matcha, add a little hot water at 80 degrees, and whisk in a zigzag."),
            ("user", "Should I buy a bamboo whisk?"),
            ("assistant", "A bamboo whisk makes the foam finer; it costs little and lasts a year or two."),
            ("user", "Thanks, that's all for today."),
            ("assistant", "Enjoy your matcha!"),
        ],
    ),
]
JOB, HOME, DOG = "D3:1", "D4:1", "D2:1"
MATCHA = {f"D6:{i}" for i in range(1, 7)}


def messages(named: bool) -> list[dict[str, str]]:
    out = []
    for n, (when, turns) in enumerate(SESSIONS, 1):
        for i, (role, text) in enumerate(turns, 1):
            if named:
                message = {"speaker": "Maya" if role == "user" else "Assistant", "text": text}
            else:
                message = {"role": role, "content": text}
            out.append({**message, "created_at": when, "session": str(n), "id": f"D{n}:{i}"})
    return out


@pytest.fixture(scope="module", params=[False, True], ids=["roles", "named"])
def chat(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, bool]]:
    store = Path(tmp_path_factory.mktemp("chat")) / "m.db"
    with Memory(Settings(store=str(store))) as memory:
        memory.add(messages(request.param), user_id="maya")
        yield memory, request.param


def ask(chat: tuple[Memory, bool], question: str) -> list:  # type: ignore[type-arg]
    memory, named = chat
    return list(memory.search(question.replace("the user", "Maya") if named else question, user_id="maya").contexts)


@pytest.mark.parametrize(
    ("question", "answer", "within"),
    [
        ("What is the user's job?", JOB, 1),
        ("What is the name of Sam's dog?", DOG, 1),
        # the move is told in other words than the question ("the new flat is in Manchester"): the January
        # "I live in Bristol" matches the question's words far better and keeps its place (time is bounded);
        # the move is returned, unmarked, with its date
        ("Where does the user live now?", HOME, 10),
    ],
)
def test_the_answer_s_context_is_near_the_top_and_never_marked_superseded(
    chat: tuple[Memory, bool], question: str, answer: str, within: int
) -> None:
    hits = ask(chat, question)
    assert any(answer in h.context.turn_ids for h in hits[:within]), [h.context.turn_ids for h in hits[:3]]
    holders = [h for h in hits if answer in h.context.turn_ids]
    assert all(h.latest is not False for h in holders), "the answer is not marked as superseded"
    first = hits[0]
    assert 0.0 < first.score <= 1.0 and first.relevance is not None


@pytest.mark.parametrize("question", ["What is the user's job?", "Where does the user live now?"])
def test_an_unrelated_later_session_is_never_raised_or_marked(chat: tuple[Memory, bool], question: str) -> None:
    hits = ask(chat, question)
    for h in hits:
        if set(h.context.turn_ids) <= MATCHA:
            assert h.adjustments == () and h.latest is None, "the matcha session is on no subject of the question"


def test_an_unrelated_later_session_is_not_lifted_over_the_answer(chat: tuple[Memory, bool]) -> None:
    hits = ask(chat, "What is the user's job?")
    matcha = [h.rank for h in hits if set(h.context.turn_ids) <= MATCHA]
    job = next(h.rank for h in hits if JOB in h.context.turn_ids)
    assert all(rank > job for rank in matcha)
    for h in hits:
        if set(h.context.turn_ids) <= MATCHA:
            assert h.latest is None, "the matcha session is not on the job's subject"


def test_k_1_is_the_best_context_with_its_real_score(chat: tuple[Memory, bool]) -> None:
    memory, _ = chat
    question = "What is the name of Sam's dog?"
    one = memory.search(question, user_id="maya", k=1).contexts
    assert len(one) == 1 and DOG in one[0].context.turn_ids and one[0].score > 0.1
