from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from anchormem.ingest.chunk import chunk_session, render_context, windows
from anchormem.ingest.sources import parse_locomo
from anchormem.model import Scope, Turn
from tests.fixtures import locomo_sample


def _turns(n: int, session: str = "1") -> list[Turn]:
    return [
        Turn(
            id=f"D{session}:{i + 1}",
            session=session,
            position=i,
            speaker="AB"[i % 2],
            text=f"t{i}",
            timestamp="1 May, 2023",
        )
        for i in range(n)
    ]


def test_windows_match_the_papers_three_turns_stride_two() -> None:
    assert [list(w) for w in windows(5)] == [[0, 1, 2], [2, 3, 4], [4]]
    assert [list(w) for w in windows(6)] == [[0, 1, 2], [2, 3, 4], [4, 5]]
    assert [list(w) for w in windows(1)] == [[0]]
    assert windows(0) == []


def test_chunking_on_a_locomo_shaped_fixture() -> None:
    conv = parse_locomo([locomo_sample()])[0]
    scope = Scope("u")
    s1 = [t for t in conv.turns if t.session == "1"]
    contexts = chunk_session(scope, s1)
    assert [c.turn_ids for c in contexts] == [("D1:1", "D1:2", "D1:3"), ("D1:3", "D1:4", "D1:5"), ("D1:5",)]
    first = contexts[0].text.splitlines()
    assert first[0] == "DATE: 1:56 pm on 8 May, 2023"
    assert first[1] == 'Ana said, "I finally adopted a dog from the shelter yesterday, his name is Pico."'
    assert first[3].endswith('" and shared a photo of a dog on a beach.')
    assert [c.position for c in contexts] == [0, 1, 2]


def test_context_ids_are_stable_and_scoped() -> None:
    turns = _turns(4)
    a = chunk_session(Scope("u1"), turns)
    assert [c.id for c in a] == [c.id for c in chunk_session(Scope("u1"), turns)]
    assert {c.id for c in a}.isdisjoint(c.id for c in chunk_session(Scope("u2"), turns))


def test_render_context_without_date() -> None:
    assert render_context(None, _turns(1)).startswith("DATE: unknown\n")


@given(st.integers(min_value=1, max_value=60))
def test_every_turn_is_in_some_window_and_neighbours_share_one(n: int) -> None:
    ctx = chunk_session(Scope("u"), _turns(n))
    covered = {t for c in ctx for t in c.turn_ids}
    assert covered == {f"D1:{i + 1}" for i in range(n)}
    for a, b in itertools.pairwise(ctx):
        assert a.turn_ids[-1] == b.turn_ids[0]
    assert all(1 <= len(c.turn_ids) <= 3 for c in ctx)
