"""The rerank contract (query.rerank, query.subject, query.recency, query.tense): relevance first, time a
bounded signal between contexts on the same subject, marks only between them, scores that mean something.

The snapshot is built by hand with chosen anchor vectors, so "same subject" is exactly what the vectors say."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import ClassVar

import numpy as np
import pytest

from anchormem.config import RetrievalSettings
from anchormem.errors import ConfigError
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Fact
from anchormem.search.rerank import stage as rerank
from anchormem.search.rerank.stage import FLOOR, Candidates
from anchormem.search.rerank.subject import SAME_SUBJECT
from anchormem.search.retrieve import RECIPES, retrieve, retrieve_with

DATES = {"1": "9:00 am on 8 January, 2024", "2": "9:00 am on 14 June, 2024", "3": "9:00 am on 2 September, 2024"}
LIVE = np.array([1.0, 0.0, 0.0, 0.0, 0.0], np.float32)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


def build(rows: list[tuple[str, str, str, np.ndarray]], source: str = "offline") -> ScopeSnapshot:
    """One context per row: (session, text of its one message, its one anchor, the anchor's vector); the
    anchors are the offline extractor's, or an LLM's facts (``source``)."""
    contexts, facts, vectors = [], [], []
    positions: dict[str, int] = {}
    for i, (session, text, anchor, vector) in enumerate(rows):
        position = positions.get(session, 0)
        positions[session] = position + 1
        turn = f"D{session}:{position + 1}"
        body = f'DATE: {DATES[session]}\nuser said, "{text}"'
        contexts.append(Context(f"c{i}", session, position, (turn,), DATES[session], body))
        facts.append(Fact(f"f{i}", f"c{i}", f"user: {anchor}", source))  # type: ignore[arg-type]
        vectors.append(vector)
    order = sorted(range(len(contexts)), key=lambda i: (contexts[i].session, contexts[i].position))
    return ScopeSnapshot([contexts[i] for i in order], [facts[i] for i in order], np.stack([vectors[i] for i in order]))


# the user lived in Leeds (January), moved to Glasgow (June: other words, an anchor near the first);
# September is about matcha (an anchor about something else), and the dog is stable
MOVE = [
    ("1", "I live in Leeds, near the market.", "I live in Leeds, near the market.", unit(1, 0.1, 0, 0, 0)),
    ("1", "My dog Biscuit is three.", "My dog Biscuit is three.", unit(0, 0, 1, 0, 0)),
    ("2", "Boxes unpacked, we live in Glasgow.", "Boxes unpacked, we live in Glasgow.", unit(0.95, 0.3, 0, 0, 0)),
    ("3", "I switched my coffee for matcha.", "I switched my coffee for matcha.", unit(0, 0, 0, 1, 0.2)),
]


@pytest.fixture
def snap() -> ScopeSnapshot:
    return build(MOVE)


def search(snap: ScopeSnapshot, query: str, vector: np.ndarray, **settings: object) -> list:  # type: ignore[type-arg]
    result = retrieve(snap, query, vector, replace(RetrievalSettings(), **settings), trace=True)  # type: ignore[arg-type]
    return list(result.contexts)


def turn(hit: object) -> str:
    return hit.context.turn_ids[0]  # type: ignore[attr-defined]


def test_the_anchors_of_a_change_are_on_one_subject_and_an_unrelated_session_is_not() -> None:
    leeds, glasgow, matcha = unit(1, 0.1, 0, 0, 0), unit(0.95, 0.3, 0, 0, 0), unit(0, 0, 0, 1, 0.2)
    assert float(leeds @ glasgow) >= SAME_SUBJECT > float(leeds @ matcha)


def test_the_latest_statement_on_a_subject_gains_at_most_the_bound_and_offline_marks_are_left_out() -> None:
    snap = build(MOVE, "offline")
    question = "Where does the user live now?"
    plain = search(snap, question, unit(1, 0.2, 0, 0, 0), rerankers=())
    hits = search(snap, question, unit(1, 0.2, 0, 0, 0))
    glasgow = next(h for h in hits if turn(h) == "D2:1")
    leeds = next(h for h in hits if turn(h) == "D1:1")
    assert dict(glasgow.adjustments) == {"recency": 0.1, "tense": 0.1}, "recency, and tense for a present question"
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    assert glasgow.score == pytest.approx((glasgow.relevance + 0.2) / max(1.0, glasgow.relevance + 0.2))
    assert [turn(h) for h in plain][:1] == ["D1:1"] and turn(hits[0]) == "D2:1", "the move passes the old statement"
    assert glasgow.latest is None and leeds.latest is None, "offline marks were measured too often wrong"


# Leeds, then Glasgow, then Boulder: the last move said in few words, so it scores low for the question
MOVES_TWICE = [*MOVE, ("3", "Boulder it is, new lease.", "Boulder it is, new lease.", unit(0.7, 0.7, 0, 0, 0))]


def test_no_stage_lifts_an_older_statement_above_a_newer_one_on_its_subject() -> None:
    hits = search(build(MOVES_TWICE), "Where does the user live now?", unit(1, 0.2, 0, 0, 0))
    glasgow = next(h for h in hits if turn(h) == "D2:1")
    boulder = next(h for h in hits if turn(h) == "D3:2")
    assert boulder.relevance < glasgow.relevance, "the later move scores lower: the case the rule is for"
    assert "recency" not in dict(glasgow.adjustments), "a later statement on its subject is among the candidates"
    assert "tense" not in dict(glasgow.adjustments)


def test_an_unrelated_later_session_marks_nothing_and_moves_nothing(snap: ScopeSnapshot) -> None:
    hits = search(snap, "What is the name of the user's dog?", unit(0.05, 0, 1, 0.05, 0))
    dog = next(h for h in hits if turn(h) == "D1:2")
    assert hits[0] is dog, "the answer's context is first"
    assert dog.latest is None and dog.newer == (), "no later context is on the dog's subject"
    matcha = next(h for h in hits if turn(h) == "D3:1")
    assert matcha.adjustments == () and matcha.latest is None


def test_a_past_question_takes_the_recency_raise_back(snap: ScopeSnapshot) -> None:
    hits = search(snap, "Where did the user live at first?", unit(1, 0.2, 0, 0, 0))
    glasgow = next(h for h in hits if turn(h) == "D2:1")
    assert sum(v for _, v in glasgow.adjustments) == pytest.approx(0.0)
    assert turn(hits[0]) == "D1:1", "the plain ranking stands"


def test_a_question_in_another_language_gets_only_the_language_free_stage(snap: ScopeSnapshot) -> None:
    hits = search(snap, "Wo wohnt die Nutzerin jetzt?", unit(1, 0.2, 0, 0, 0))
    glasgow = next(h for h in hits if turn(h) == "D2:1")
    assert dict(glasgow.adjustments) == {"recency": 0.1}


def test_a_weak_context_is_never_raised() -> None:
    # the June statement's anchor is on the subject but its evidence is far weaker than January's
    rows = [*MOVE[:2], ("2", "Boxes unpacked!", "Boxes unpacked!", unit(0.2, 1, 0, 0, 0.1)), MOVE[3]]
    snap = build(rows)
    hits = search(snap, "Where does the user live now?", unit(1, 0, 0, 0, 0))
    peak = max(h.relevance for h in hits)
    for h in hits:
        if h.relevance < FLOOR * peak:
            assert all(v <= 0 for _, v in h.adjustments), "no stage lifts weak evidence"


def test_k_1_returns_the_best_context_with_its_real_score(snap: ScopeSnapshot) -> None:
    for query, vector in (("What is the name of the user's dog?", unit(0, 0, 1, 0, 0)), ("live", LIVE)):
        wide = search(snap, query, vector)
        one = search(snap, query, vector, max_contexts=1)
        assert len(one) == 1 and one[0].context.id == wide[0].context.id
        assert one[0].score == wide[0].score and one[0].score > 0.01


def test_no_artificial_ties_and_no_score_above_one(snap: ScopeSnapshot) -> None:
    hits = search(snap, "Where does the user live now?", unit(1, 0.2, 0, 0, 0))
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and max(scores) <= 1.0
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_without_stages_the_score_is_the_relevance(snap: ScopeSnapshot) -> None:
    for h in search(snap, "Where does the user live now?", unit(1, 0.2, 0, 0, 0), rerankers=()):
        assert h.adjustments == () and h.score == h.relevance


class Shout:
    name: ClassVar[str] = "test-shout"
    languages: ClassVar[tuple[str, ...]] = ("*",)

    def adjust(self, candidates: Candidates) -> Mapping[int, float]:
        return {row: 5.0 for row in candidates.rows}  # far beyond any bound


def test_a_registered_stage_runs_by_name_and_is_clipped_to_the_bound(snap: ScopeSnapshot) -> None:
    rerank.register(Shout)
    try:
        hits = search(snap, "live", LIVE, rerankers=("test-shout",), rerank_bound=0.05)
        assert hits and all(dict(h.adjustments).get("test-shout", 0.05) == 0.05 for h in hits)
    finally:
        del rerank.STAGES["test-shout"]
    with pytest.raises(ConfigError, match="unknown rerank stage"):
        search(snap, "live", LIVE, rerankers=("nope",))


def test_the_trace_is_of_the_run_and_its_parts_add_up(snap: ScopeSnapshot) -> None:
    result = retrieve_with(
        snap,
        "Where does the user live now?",
        unit(1, 0.2, 0, 0, 0),
        RetrievalSettings(),
        RECIPES["anchormem"],
        trace=True,
    )
    trace = result.trace
    assert trace is not None and trace.stages == ("own-words", "statements", "recency", "tense", "before-change")
    assert [c.context_id for c in trace.contexts] == [h.context.id for h in result.contexts]
    for row, hit in zip(trace.contexts, result.contexts, strict=True):
        total = sum(s.weight for s in row.signals)
        assert sum(s.weight * s.spread for s in row.signals) / total == pytest.approx(hit.relevance)
        assert row.adjustments == hit.adjustments and row.score == hit.score
        assert row.picked_at is not None
    assert dict(trace.notes).keys() >= {"recency", "tense"}
