"""The parts behind the inspector's views: the signal breakdown of a search (``query.explain``), anchors
and query words located in the original text (``query.highlight``), the delete dry run
(``lifecycle.preview``) and the calendar days read from free-text timestamps."""

from __future__ import annotations

from datetime import date

import pytest

from anchormem.answer.highlight import anchor_spans, term_spans
from anchormem.errors import InputError, NotFoundError
from anchormem.lifecycle.preview import preview_delete
from anchormem.memory import Memory
from anchormem.search.explain import explain
from anchormem.server.ui.dates import parse_day
from tests.fixtures import SESSION_1, SESSION_2, messages

QUESTIONS = ("What is the name of Ana's dog?", "Who plays the cello?", "What did the grandmother hang in her kitchen?")


@pytest.fixture
def alice(memory: Memory) -> Memory:
    memory.add(messages(SESSION_1, session="1") + messages(SESSION_2, session="2", stamp="2024-03-08"), user_id="alice")
    return memory


def _explained(memory: Memory, question: str, variant: str, max_contexts: int = 4, **options: object) -> tuple:  # type: ignore[type-arg]
    result = memory.search(question, user_id="alice", variant=variant, max_contexts=max_contexts, trace=True, **options)  # type: ignore[arg-type]
    return result, explain(result)


@pytest.mark.parametrize("variant", ["anchormem", "no-events"])
@pytest.mark.parametrize("question", QUESTIONS)
def test_the_trace_s_parts_add_up_to_the_returned_score(alice: Memory, variant: str, question: str) -> None:
    result, why = _explained(alice, question, variant)
    assert why.mode == "hybrid"
    assert [x.context_id for x in why.contexts] == [h.context.id for h in result.contexts]
    for hit, x in zip(result.contexts, why.contexts, strict=True):
        assert x.relevance == pytest.approx(hit.relevance, abs=1e-9) and x.score == hit.score
        assert sum(x.contributions.values()) == pytest.approx(hit.score, abs=1e-9)
        assert x.adjustments == dict(hit.adjustments)
        assert x.picked_at is not None and x.picked_at >= 1
        assert {"anchor", "lexical"} <= {s.name for s in x.signals}
        assert x.contributions["shared_turns"] >= -1e-12  # spreading never lowers a window
    steps = sorted(x.picked_at for x in why.contexts)
    assert steps[0] == 1 and len(set(steps)) == len(steps)


@pytest.mark.parametrize("variant", ["paper", "bm25"])
def test_rank_based_variants_report_their_rank(alice: Memory, variant: str) -> None:
    result, why = _explained(alice, QUESTIONS[0], variant)
    assert why.mode == variant
    for hit, x in zip(result.contexts, why.contexts, strict=True):
        assert x.relevance_rank == hit.rank and x.score == hit.score


def test_a_result_without_its_trace_is_not_explained(alice: Memory) -> None:
    with pytest.raises(InputError, match="trace=True"):
        explain(alice.search(QUESTIONS[0], user_id="alice"))
    with pytest.raises(InputError):
        alice.search(QUESTIONS[0], user_id="alice", variant="nope")


def test_verbatim_anchor_is_found_in_the_words_without_its_speaker() -> None:
    text = 'DATE: 1 May\nAna said, "I adopted a dog, his name is Pico."\nBen said, "Nice."'
    spans = anchor_spans(text, ["Ana: I adopted a dog, his name is Pico."])
    assert [text[s.start : s.end] for s in spans] == ["I adopted a dog, his name is Pico."]


def test_paraphrased_fact_marks_the_words_it_shares_outside_the_date_line() -> None:
    text = 'DATE: 1 May 2024\nAna said, "We adopted two puppies in May."'
    spans = anchor_spans(text, ["Ana adopted puppies in May 2024"])
    words = [text[s.start : s.end] for s in spans]
    assert words == ["Ana", "adopted", "puppies", "May"]  # stems match; the DATE line is not an anchor's words
    assert all(s.anchor == 0 and s.kind == "anchor" for s in spans)


def test_overlapping_anchors_keep_the_better_one() -> None:
    text = 'Ana said, "Pico loves the beach."'
    spans = anchor_spans(text, ["Ana: Pico loves the beach.", "Pico beach"])
    assert [(s.anchor, text[s.start : s.end]) for s in spans] == [(0, "Pico loves the beach.")]


def test_term_spans_are_the_query_words_by_stem() -> None:
    text = 'DATE: x\nBen said, "I played cello recitals; the recital went well."'
    assert [text[s.start : s.end] for s in term_spans(text, "Which recital did Ben play?")] == [
        "Ben",
        "played",
        "recitals",
        "recital",
    ]
    assert term_spans(text, "the of and") == []


def test_preview_is_the_cascade_and_deletes_nothing(alice: Memory) -> None:
    before = alice.stats(user_id="alice")
    preview = preview_delete(alice.store, "alice", None, None, turn=alice.turns(user_id="alice")[1].id)
    assert preview.turns == 1 and preview.contexts >= 1 and preview.facts >= 1
    assert preview.sessions_recut == ["1"]  # the other turns of session 1 are re-cut
    assert alice.stats(user_id="alice") == before
    report = alice.delete(user_id="alice", turn=preview.turn_ids[0])
    assert (report.turns, report.contexts, report.facts, report.events) == (
        preview.turns,
        preview.contexts,
        preview.facts,
        preview.events,
    )


def test_preview_refuses_what_delete_refuses(alice: Memory) -> None:
    with pytest.raises(InputError):
        preview_delete(alice.store, "alice", None, None)
    with pytest.raises(InputError):
        preview_delete(alice.store, "alice", None, None, session="1", all=True)
    with pytest.raises(NotFoundError):
        preview_delete(alice.store, "alice", None, None, session="nope")
    with pytest.raises(NotFoundError):
        preview_delete(alice.store, "carol", None, None, session="1")
    with pytest.raises(NotFoundError):
        preview_delete(alice.store, "carol", None, None, all=True)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("1:56 pm on 8 May, 2023", date(2023, 5, 8)),
        ("2024-03-01 10:00", date(2024, 3, 1)),
        ("2024-03-01T10:00:00Z", date(2024, 3, 1)),
        ("September 3rd, 2022", date(2022, 9, 3)),
        ("on 21 Sept 2021 at noon", date(2021, 9, 21)),
        ("2023/7/4", date(2023, 7, 4)),
        ("yesterday", None),
        ("2023-02-30", None),
        (None, None),
    ],
)
def test_days_from_free_text_timestamps(text: str | None, day: date | None) -> None:
    assert parse_day(text) == day
