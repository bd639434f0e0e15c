"""A message and the long reply to it (query.scoring.exchange_lift), and the own-words stage (query.own_words).

The snapshot is built by hand: a user's short message, then an assistant's answer cut into two passages (each in a
window of its own, as ``ingest.chunk`` cuts a long message), with chosen anchor vectors, so what matches the query
is exactly what the vectors say."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from anchormem.config import RetrievalSettings
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Fact, SearchResult
from anchormem.search.explain import explain
from anchormem.search.retrieve import RECIPES, retrieve_with
from anchormem.search.scoring import exchange_lift
from anchormem.search.select import BestAnchors
from anchormem.text.voice import context_speakers

DATE = "9:00 am on 8 January, 2024"
DOG = np.array([1.0, 0.0, 0.0, 0.0], np.float32)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


def chat(user: str = "user", assistant: str = "assistant") -> ScopeSnapshot:
    """Session 1: the user asks for gift ideas (an anchor far from the dog); the assistant's two-passage answer
    speaks of the dog's stocking (near the dog). Session 2: an unrelated exchange about tea."""
    gift = "Christmas gift planning time! Ideas for the family?"
    answer = "For Biscuit's stocking: a greyhound jumper and long chews. For your mum: a scarf and tea."
    cut = answer.index(" For your mum")
    rows = [
        ("1", 0, ("D1:1",), (), f'{user} said, "{gift}"', f"{user}: {gift}", unit(0.1, 1, 0, 0)),
        (
            "1",
            1,
            ("D1:2",),
            ((0, cut),),
            f'{assistant} said (part 1 of 2), "{answer[:cut]}…"',
            f"{assistant}: {answer[:cut]}",
            unit(1, 0.1, 0, 0),
        ),
        (
            "1",
            2,
            ("D1:2",),
            ((cut + 1, len(answer)),),
            f'{assistant} said (part 2 of 2), "…{answer[cut + 1 :]}"',
            f"{assistant}: {answer[cut + 1 :]}",
            unit(0, 0.2, 1, 0),
        ),
        ("2", 0, ("D2:1",), (), f'{user} said, "Which green tea is mildest?"', f"{user}: Tea?", unit(0, 0, 0.3, 1)),
    ]
    contexts, facts, vectors = [], [], []
    for i, (session, position, turns, offsets, line, anchor, vector) in enumerate(rows):
        contexts.append(Context(f"c{i}", session, position, turns, DATE, f"DATE: {DATE}\n{line}", offsets))
        facts.append(Fact(f"f{i}", f"c{i}", anchor, "offline"))
        vectors.append(vector)
    return ScopeSnapshot(contexts, facts, np.stack(vectors))


def search(snap: ScopeSnapshot, query: str, vector: np.ndarray = DOG, **settings: object) -> SearchResult:
    wanted = replace(RetrievalSettings(), **settings)  # type: ignore[arg-type]
    return retrieve_with(snap, query, vector, wanted, RECIPES["anchormem"], trace=True)


def test_a_message_takes_the_value_of_the_best_passage_of_the_reply_to_it() -> None:
    snap = chat()
    values = np.array([0.1, 0.9, 0.4, 0.2])
    lifted, replies = exchange_lift(snap, values, [0, 1, 2, 3])
    assert lifted.tolist() == [0.9, 0.9, 0.4, 0.2]  # the passages and the next session keep their own
    assert replies == {0: 1}
    # a higher own value is kept, and rows outside those asked about lift nothing
    assert exchange_lift(snap, np.array([0.95, 0.9, 0.4, 0.2]), [0, 1, 2, 3])[0][0] == 0.95
    assert exchange_lift(snap, values, [0, 3])[1] == {}


def test_windows_without_passages_move_nothing() -> None:
    snap = chat()
    whole = [replace(c, offsets=()) for c in snap.contexts]
    plain = ScopeSnapshot(whole, snap.facts, np.asarray(snap.fact_vectors[np.arange(len(snap.facts))]))
    values = np.array([0.1, 0.9, 0.4, 0.2])
    lifted, replies = exchange_lift(plain, values, [0, 1, 2, 3])
    assert lifted.tolist() == values.tolist() and replies == {}


def test_the_users_message_comes_before_the_assistants_echo_of_it() -> None:
    # the user only asks in D1:1, so the ``statements`` stage would lower it too: left out, to see own-words alone
    stages = ("own-words", "recency", "tense", "before-change")
    result = search(chat(), "What is the name of the user's greyhound?", rerankers=stages)
    first, second = result.contexts[0], result.contexts[1]
    assert first.context.turn_ids == ("D1:1",) and second.context.id == "c1"
    assert first.relevance == pytest.approx(second.relevance)  # the message took its reply's evidence
    assert dict(second.adjustments) == {"own-words": -0.1}
    assert dict(first.adjustments) == {}
    trace = result.trace
    assert trace is not None and trace.contexts[0].reply == "c1"
    assert "own-words" in dict(trace.notes)
    why = explain(result).contexts[0]
    assert why.reply == "c1" and why.contributions["reply"] > 0
    assert sum(why.contributions.values()) == pytest.approx(first.score, abs=1e-9)


def test_without_the_stage_the_plain_ranking_stands() -> None:
    result = search(chat(), "What is the name of the user's greyhound?", rerankers=())
    assert all(not h.adjustments for h in result.contexts)
    assert result.contexts[0].relevance == pytest.approx(result.contexts[1].relevance)


def test_a_question_about_the_assistant_keeps_the_assistants_passages() -> None:
    result = search(chat(), "What did the assistant suggest for the greyhound's stocking?")
    adjusted = {h.context.id: dict(h.adjustments) for h in result.contexts}
    assert adjusted["c1"] == {} and adjusted["c2"] == {}
    assert adjusted["c0"] == {"own-words": -0.1}
    assert result.contexts[0].context.id == "c1"


def test_named_speakers_are_found_by_the_name_they_were_stored_with() -> None:
    result = search(chat(user="Nadia", assistant="Assistant"), "What is Nadia's greyhound called?")
    assert result.contexts[0].context.turn_ids == ("D1:1",)
    assert dict(result.contexts[1].adjustments) == {"own-words": -0.1}


def test_a_question_naming_nobody_is_about_the_user_beside_an_assistant_and_about_no_one_between_people() -> None:
    for query in ("Wie heißt der Hund der Nutzerin?", "What is the dog called?", "¿Cómo se llama el perro?"):
        result = search(chat(), query)  # a user and an assistant: only the user has a dog to ask about
        given = {h.context.id: dict(h.adjustments).get("own-words", 0.0) for h in result.contexts}
        assert given["c0"] == 0.0 and given["c1"] == given["c2"] == -0.1, query
        people = search(chat(user="Ana", assistant="Ben"), query)  # two people: no one to map it to
        assert all("own-words" not in dict(h.adjustments) for h in people.contexts), query


def test_a_strong_echo_stays_above_a_weak_own_message() -> None:
    """The stage moves by the bound only: an assistant passage whose evidence is stronger by more than the bound
    stays above the user's own weaker message of another exchange (its own request takes its value)."""
    result = search(chat(), "What scarf does the user's mum get?", unit(0, 0.1, 1, 0.1))
    order = [h.context.id for h in result.contexts]
    assert order[:2] == ["c0", "c2"], order  # the request the passage answers, then the passage
    assert dict(result.contexts[1].adjustments) == {"own-words": -0.1}
    assert order.index("c2") < order.index("c3")  # the weak own message of the other session stays below


def test_context_speakers_reads_the_rendered_lines() -> None:
    text = f'DATE: {DATE}\nSam said, "hi there"\n  "and again"\nAssistant said (part 2 of 3), "…yes…"'
    assert context_speakers(text) == {"Sam", "Assistant"}
    assert context_speakers("DATE: x\nnobody here") == frozenset()


def test_a_message_that_took_its_reply_s_value_stands_for_the_reply_in_the_selection() -> None:
    snap = chat()
    scores = snap.fact_vectors @ DOG
    plain, lifted = BestAnchors(snap, scores), BestAnchors(snap, scores, {0: 1})
    assert np.allclose(lifted[np.array([0])], plain[np.array([1])])
    assert np.allclose(lifted[np.array([3])], plain[np.array([3])])
