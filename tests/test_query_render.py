"""The reader's memory block: contexts as written, then events; deterministic."""

from __future__ import annotations

from anchormem.answer.render import render_memories
from anchormem.integrations.binding import as_text
from anchormem.model import Context, ContextHit, Event, EventHit, Fact, FactHit, SearchResult


def _result(with_events: bool = True) -> SearchResult:
    c1 = Context("c1", "1", 0, ("D1:1", "D1:2"), "8 May, 2023", 'DATE: 8 May, 2023\nAna said, "Hi."\nBen said, "Hey."')
    c2 = Context("c2", "2", 0, ("D2:1",), "9 May, 2023", 'DATE: 9 May, 2023\nAna said, "I got a dog."')
    f = Fact("f1", "c2", "Ana got a dog.")
    events = (EventHit(Event("e1", "Ana  got a dog\nin May.", ("f1",)), 0.5, ("c2",), (f,)),) if with_events else ()
    return SearchResult(
        query="dog?",
        contexts=(ContextHit(c1, 0.2), ContextHit(c2, 0.9, (FactHit(f, 0.9),))),
        events=events,
    )


def test_contexts_then_events_section() -> None:
    text = render_memories(_result())
    assert text == (
        'DATE: 8 May, 2023\nAna said, "Hi."\nBen said, "Hey."\n\n'
        'DATE: 9 May, 2023\nAna said, "I got a dog."\n\n'
        "Events:\n1. Ana got a dog in May."
    )
    assert "Ana got a dog." not in text.split("Events:")[0], "facts are not shown to the reader"


def test_no_events_section_without_events_and_empty_result() -> None:
    assert "Events:" not in render_memories(_result(with_events=False))
    assert render_memories(SearchResult("q", (), ())) == ""


def test_rendering_is_deterministic() -> None:
    assert render_memories(_result()) == render_memories(_result())


def test_turn_ids_label_each_turn_line_for_citations() -> None:
    text = render_memories(_result(), with_turn_ids=True)
    assert text.startswith('DATE: 8 May, 2023\n[D1:1] Ana said, "Hi."\n[D1:2] Ben said, "Hey."\n\n')
    assert '[D2:1] Ana said, "I got a dog."' in text


def test_marks_between_statements_on_one_subject_reach_the_reader_and_the_tools() -> None:
    c1 = Context("c1", "1", 0, ("D1:1",), "8 May, 2023", 'DATE: 8 May, 2023\nAna said, "I live in Leeds."')
    c2 = Context("c2", "2", 0, ("D2:1",), "9 June, 2023", 'DATE: 9 June, 2023\nAna said, "We moved to Porto."')
    c3 = Context("c3", "2", 1, ("D2:2",), "9 June, 2023", 'DATE: 9 June, 2023\nAna said, "Matcha, please."')
    hits = (ContextHit(c2, 0.9, latest=True), ContextHit(c1, 0.8, latest=False, newer=("c2",)), ContextHit(c3, 0.1))
    text = render_memories(SearchResult("where?", hits, (), reading_order=(1, 0, 2)))
    blocks = text.split("\n\n")
    assert blocks[0].splitlines()[1] == "[earlier: a later statement on this subject is below]"
    assert blocks[1].splitlines()[1] == "[latest on this subject]"
    assert "[" not in blocks[2], "a context compared with nothing is not marked"
    tool = as_text(SearchResult("where?", hits, (), reading_order=(1, 0, 2)))  # MCP / LangChain / Agents tools
    assert "[latest]" in tool and "[earlier]" in tool
