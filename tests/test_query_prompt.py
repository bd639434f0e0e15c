"""A search result as one prompt-ready block: budget, merged spans, each turn once, headers, marks."""

from __future__ import annotations

import re

import pytest

from anchormem.model import Context, ContextHit, Event, EventHit, SearchResult
from anchormem.render.prompt_block import render_prompt, turn_lines

TURNS = {
    "D1:1": ("Ana", "I adopted a dog, his name is Pico."),
    "D1:2": ("Ben", "Congrats! I started the cello."),
    "D1:3": ("Ana", "Pico loves the beach."),
    "D1:4": ("Ben", "My teacher wants scales every day."),
    "D1:5": ("Ana", "I am painting Pico for my grandmother."),
    "D2:1": ("Ben", "I played my first recital."),
    "D2:2": ("Ana", "I gave the portrait to my grandmother."),
    "D2:3": ("Ben", "It went well."),
}


def ctx(session: str, position: int, ids: tuple[str, ...], date: str) -> Context:
    body = [f'{TURNS[t][0]} said, "{TURNS[t][1]}"' for t in ids]
    return Context(f"c{session}-{position}", session, position, ids, date, "\n".join([f"DATE: {date}", *body]))


S1 = "1:56 pm on 8 May, 2023"
S2 = "7:30 pm on 20 May, 2023"
A = ctx("1", 0, ("D1:1", "D1:2", "D1:3"), S1)
B = ctx("1", 1, ("D1:3", "D1:4", "D1:5"), S1)
C = ctx("2", 0, ("D2:1", "D2:2", "D2:3"), S2)
EVENT = EventHit(Event("e-1", "Ana adopted Pico and painted him for her grandmother.", ("f1", "f2")), 0.8)


def result(events: tuple[EventHit, ...] = (EVENT,), latest: bool = False) -> SearchResult:
    hits = (
        ContextHit(C, 0.9, rank=1, latest=True if latest else None),
        ContextHit(B, 0.7, rank=2, latest=False if latest else None, newer=(C.id,) if latest else ()),
        ContextHit(A, 0.5, rank=3),
    )
    return SearchResult("Who did Ana paint?", hits, events, reading_order=(2, 1, 0))


def turn_ids_in(block: str) -> list[str]:
    return re.findall(r"^\[([^\]]+)\] ", block, flags=re.MULTILINE)


def test_overlapping_windows_merge_into_one_span_with_each_turn_once() -> None:
    block = result().as_prompt()
    ids = turn_ids_in(block)
    assert ids == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D2:1", "D2:2", "D2:3"], "conversation order, once each"
    heads = [line for line in block.splitlines() if line.startswith("## ")]
    assert heads == [f"## {S1} · session 1 · turns D1:1–D1:5", f"## {S2} · session 2 · turns D2:1–D2:3"]
    assert block.startswith("Memories for: Who did Ana paint?\n2 excerpts in conversation order")
    assert block.rstrip().endswith("1. Ana adopted Pico and painted him for her grandmother.")


@pytest.mark.parametrize("budget", [1, 20, 60, 120, 200, 260, 320, 400, 500, 700, 2000])
def test_the_budget_is_respected_and_the_best_context_comes_first(budget: int) -> None:
    block = render_prompt(result(), max_chars=budget)
    assert len(block) <= budget
    ids = turn_ids_in(block)
    assert len(ids) == len(set(ids)), "no turn twice"
    if ids and budget < 2000:
        assert "D2:1" in ids or block.endswith("…"), "the rank-1 context is the first to be kept"


def test_lower_ranked_contexts_and_events_are_dropped_first() -> None:
    full = result().as_prompt()
    without_event = result(events=()).as_prompt()
    assert len(without_event) < len(full)
    assert result().as_prompt(max_chars=len(without_event)) == without_event, "events only within the budget"
    best_only = render_prompt(result(events=()), max_chars=len(without_event) - 1)
    assert "D2:1" in turn_ids_in(best_only) and "D1:1" not in turn_ids_in(best_only)


def test_current_and_earlier_marks() -> None:
    block = result(latest=True).as_prompt()
    heads = [line for line in block.splitlines() if line.startswith("## ")]
    assert heads[0].endswith("[earlier]") and heads[1].endswith("[latest]")
    assert "[latest]/[earlier] compare statements" in block
    assert "[latest]" not in result().as_prompt()


def test_a_turn_over_several_lines_stays_whole() -> None:
    text = 'DATE: d\nAna said, "first line\nsecond line"\nBen said, "ok"'
    hit = ContextHit(Context("c", "1", 0, ("D1:1", "D1:2"), "d", text), 1.0, rank=1)
    assert turn_lines(hit) == [("D1:1", 'Ana said, "first line\nsecond line"'), ("D1:2", 'Ben said, "ok"')]


def test_empty_result_and_zero_budget() -> None:
    assert SearchResult("q", (), ()).as_prompt() == ""
    assert result().as_prompt(max_chars=0) == ""
