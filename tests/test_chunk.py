from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from anchormem.config import ChunkSettings
from anchormem.ingest.chunk import chunk_session, is_chat, render_context, windows
from anchormem.ingest.sources import parse_locomo
from anchormem.model import Scope, Turn
from anchormem.prompts.answer import label_turns
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


# -- chat sessions: runs of messages, windows by text length ------------------------------------------

CHAT = [
    ("Emi", "Hey!"),
    ("Emi", "I'm taking a cooking class today."),
    ("Emi", "Italian food."),
    ("Lise", "Sounds fun, what will you make?"),
    ("Emi", "Pasta with ham and peas."),
    ("Emi", "And tiramisu for dessert, my favourite."),
    ("Lise", "I went skiing in St. Moritz."),
    ("Lise", "The snow was perfect."),
    ("Emi", "Wow!"),
]


def _chat(spec: list[tuple[str, str]] = CHAT, session: str = "1") -> list[Turn]:
    return [
        Turn(id=f"m{i}", session=session, position=i, speaker=s, text=t, timestamp=f"29.12.2023, 22:{i:02d}:00")
        for i, (s, t) in enumerate(spec)
    ]


def test_a_chat_session_is_cut_into_whole_speaker_turns_within_the_budget() -> None:
    turns = _chat()
    ctx = chunk_session(Scope("u"), turns, ChunkSettings(chat_chars=70))
    # turns (text length): Emi m0-m2 (50), Lise m3 (31), Emi m4-m5 (63), Lise m6-m7 (49), Emi m8 (4)
    assert [c.turn_ids for c in ctx] == [("m0", "m1", "m2"), ("m3",), ("m4", "m5"), ("m6", "m7", "m8")]
    assert [c.position for c in ctx] == list(range(4))
    assert [c.date for c in ctx] == [turns[i].timestamp for i in (0, 3, 4, 6)]  # each window: its first message's


def test_chat_windows_hold_every_message_once_with_its_own_line() -> None:
    ctx = chunk_session(Scope("u"), _chat(), ChunkSettings(chat_chars=70))
    assert [tid for c in ctx for tid in c.turn_ids] == [f"m{i}" for i in range(len(CHAT))]
    first = ctx[0].text.splitlines()
    assert first == [
        "DATE: 29.12.2023, 22:00:00",
        'Emi said, "Hey!"',
        '  "I\'m taking a cooking class today."',
        '  "Italian food."',
    ]
    labelled = label_turns(ctx[0].text, ctx[0].turn_ids).splitlines()
    assert labelled[1:] == [
        '[m0] Emi said, "Hey!"',
        '[m1]   "I\'m taking a cooking class today."',
        '[m2]   "Italian food."',
    ]


def test_a_message_longer_than_the_budget_is_a_window_of_its_own() -> None:
    spec = [("A", "short"), ("A", "x" * 500), ("A", "tail"), ("B", "ok"), ("B", "sure")]
    ctx = chunk_session(Scope("u"), _chat(spec), ChunkSettings(chat_chars=100))
    assert [c.turn_ids for c in ctx] == [("m0",), ("m1",), ("m2", "m3", "m4")]


def test_alternating_dialogue_and_the_paper_setting_keep_the_papers_windows() -> None:
    paper = [c.turn_ids for c in chunk_session(Scope("u"), _chat(), ChunkSettings.paper())]
    assert paper == [tuple(f"m{i}" for i in w) for w in windows(len(CHAT))]
    alternating = _turns(7)
    assert [c.turn_ids for c in chunk_session(Scope("u"), alternating)] == [
        c.turn_ids for c in chunk_session(Scope("u"), alternating, ChunkSettings.paper())
    ]


def test_one_double_message_does_not_make_a_chat() -> None:
    once = _chat([("A", "a"), ("B", "b"), ("B", "c"), ("A", "d"), ("B", "e")])
    assert not is_chat(once)
    assert [c.turn_ids for c in chunk_session(Scope("u"), once)] == [("m0", "m1", "m2"), ("m2", "m3", "m4"), ("m4",)]
    assert is_chat(_chat([("A", "a"), ("A", "b"), ("B", "c"), ("B", "d")]))


@given(
    st.lists(st.tuples(st.sampled_from("AB"), st.text("abc ", min_size=1, max_size=90)), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=300),
)
def test_chat_windows_cover_each_message_once_in_order(spec: list[tuple[str, str]], budget: int) -> None:
    turns = _chat(spec)
    ctx = chunk_session(Scope("u"), turns, ChunkSettings(chat_chars=budget))
    assert ctx == chunk_session(Scope("u"), turns, ChunkSettings(chat_chars=budget))  # deterministic
    if not is_chat(turns):
        return
    assert [tid for c in ctx for tid in c.turn_ids] == [t.id for t in turns]
    by_id = {t.id: t for t in turns}
    for c in ctx:
        msgs = [by_id[tid] for tid in c.turn_ids]
        assert len(msgs) == 1 or sum(len(m.text) for m in msgs) <= budget
        assert len(c.text.splitlines()) == 1 + len(msgs)
