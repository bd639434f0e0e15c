"""Rendering a prompt block is linear in what it renders and capped (issue 30, item 2): the block is not
rendered again for every context it takes, and never grows past ``MAX_PROMPT_CHARS``."""

from __future__ import annotations

import pytest

from anchormem.model import Context, ContextHit, Event, EventHit, SearchResult
from anchormem.render import prompt_block
from anchormem.render.prompt_block import MAX_PROMPT_CHARS, render_block


def result(n: int, chars: int = 60, events: int = 10) -> SearchResult:
    hits = []
    for i in range(n):
        session, position = divmod(i, 40)
        ids = tuple(f"t-{session:04x}{position * 3 + j:012x}" for j in range(6))
        lines = [f"DATE: {1 + session} May, 2023"]
        lines += [f'user said, "message {position * 3 + j} {"x" * chars}"' for j in range(6)]
        hits.append(
            ContextHit(Context(f"c-{i}", f"s{session}", position, ids, lines[0][6:], "\n".join(lines)), 1.0, rank=i + 1)
        )
    order = tuple(sorted(range(n), key=lambda i: (hits[i].context.session, hits[i].context.position)))
    found = tuple(EventHit(Event(f"e-{i}", f"event {i}", ()), 0.5) for i in range(events))
    return SearchResult("q", tuple(hits), found, order)


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = prompt_block._render

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(prompt_block, "_render", counted)
    return calls


def test_a_block_that_fits_is_rendered_at_most_twice(renders: list[int]) -> None:
    block = render_block(result(200), max_chars=1_000_000)
    assert block.text.count("\n[#") >= 200 and "10. event 9" in block.text
    assert len(renders) <= 2, f"{len(renders)} renders for 200 contexts and 10 events"


def test_a_budget_costs_a_logarithmic_number_of_renders(renders: list[int]) -> None:
    full = len(render_block(result(200)).text)
    renders.clear()
    block = render_block(result(200), max_chars=full // 2)
    assert 0 < len(block.text) <= full // 2
    assert len(renders) <= 2 + 8 + 16 + 1, f"{len(renders)} renders"


def test_the_block_is_capped_whatever_the_budget() -> None:
    big = result(200, chars=2_000, events=0)  # ~1.2 million characters of messages
    for max_chars in (None, 5_000_000):
        text = render_block(big, max_chars=max_chars).text
        assert 0 < len(text) <= MAX_PROMPT_CHARS and text.rstrip().endswith("</memories>")
