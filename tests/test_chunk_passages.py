"""Long messages are cut into passages that keep their message's id and offsets; every session's
contexts stay within a character budget, and the paper's windows stay where they fit."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from anchormem.config import ChunkSettings
from anchormem.ingest.chunk import chunk_session, keeps_paper_windows, passage_bounds, windows
from anchormem.ingest.extract import extract_offline
from anchormem.ingest.sources import parse_locomo
from anchormem.model import ContextHit, Scope, SearchResult, Turn
from anchormem.wire.deserialize import from_jsonable
from anchormem.wire.serialize import to_jsonable
from tests.fixtures import locomo_sample

PARAGRAPH = "Moving to a new city is a big step, and it helps to plan the first weeks. " * 4
TIPS = "Find a cafe you like near home. Register at the town hall within five days. " * 4
REPLY = f"{PARAGRAPH.strip()}\n\n{TIPS.strip()}\n\nGood luck with the new job in Utrecht, and enjoy the canals!"


def chat(replies: list[str], user: str = "I just moved to Utrecht for a new job.") -> list[Turn]:
    out: list[Turn] = []
    for i, reply in enumerate(replies):
        for speaker, text in (("user", user), ("assistant", reply)):
            out.append(Turn(f"m{len(out)}", "1", len(out), speaker, text, f"2024-01-{i + 1:02d}"))
    return out


@given(st.text(st.sampled_from("ab .!?\n"), min_size=0, max_size=3000), st.integers(min_value=1, max_value=700))
def test_passages_are_in_order_within_the_budget_and_lose_only_whitespace(text: str, budget: int) -> None:
    bounds = passage_bounds(text, budget)
    if len(text) <= budget or not text.strip():
        assert bounds == [(0, len(text))], "a short (or blank) message is one piece"
        return
    assert all(0 <= a < b <= len(text) and b - a <= budget for a, b in bounds)
    gaps = [text[: bounds[0][0]], *(text[b:a] for (_, b), (a, _) in itertools.pairwise(bounds))]
    gaps.append(text[bounds[-1][1] :])
    assert all(not gap.strip() for gap in gaps), "only whitespace falls between passages"


def test_a_long_reply_is_cut_at_paragraphs_then_sentences() -> None:
    bounds = passage_bounds(REPLY, 650)
    pieces = [REPLY[a:b] for a, b in bounds]
    assert len(pieces) == 2 and all(len(p) <= 650 for p in pieces)
    assert pieces[0] == PARAGRAPH.strip(), "the first cut is the paragraph break"
    sentences = passage_bounds(TIPS.strip(), 120)
    assert all(TIPS[a:b].endswith(".") for a, b in sentences[:-1]), "then at sentence ends"
    words = passage_bounds("word " * 100, 52)
    assert all(("word " * 100)[a:b].endswith("word") for a, b in words), "then between words"


def test_passages_keep_their_message_id_and_offsets_and_say_which_part_they_are() -> None:
    turns = chat([REPLY, "Sure."])
    contexts = chunk_session(Scope("u"), turns)
    reply = turns[1]
    pieces = [(c, i) for c in contexts for i, tid in enumerate(c.turn_ids) if tid == reply.id]
    assert len(pieces) == 2
    spans = [c.offsets[i] for c, i in pieces]
    assert spans == passage_bounds(REPLY, 650)
    for n, ((context, _), (a, b)) in enumerate(zip(pieces, spans, strict=True), 1):
        assert reply.text[a:b] in context.text, "the passage, not the whole message"
        assert f"assistant said (part {n} of 2)" in context.text
        assert len(context.offsets) == len(context.turn_ids)
    assert TIPS.strip()[:40] not in pieces[0][0].text
    whole = [c for c in contexts if not any(tid == reply.id for tid in c.turn_ids)]
    assert all(c.offsets == () for c in whole), "a window of whole messages has no offsets"


def test_user_assistant_chats_with_long_replies_stay_within_the_budget() -> None:
    settings = ChunkSettings()
    turns = chat([REPLY, REPLY.upper(), REPLY[::-1]])
    assert not keeps_paper_windows(turns, settings)
    contexts = chunk_session(Scope("u"), turns, settings)
    by_id = {t.id: t for t in turns}
    for c in contexts:
        offsets = c.offsets or tuple((0, len(by_id[t].text)) for t in c.turn_ids)
        assert sum(b - a for a, b in offsets) <= settings.chat_chars
    covered = [(tid, o) for c in contexts for tid, o in zip(c.turn_ids, c.offsets or [None] * 9, strict=False)]
    assert len(covered) == len(set(covered)), "no piece twice: windows cut by length do not overlap"
    assert {tid for tid, _ in covered} == set(by_id)


def test_short_alternating_dialogue_keeps_the_papers_windows() -> None:
    conv = parse_locomo([locomo_sample()])[0]
    s1 = [t for t in conv.turns if t.session == "1"]
    assert keeps_paper_windows(s1, ChunkSettings())
    assert [c.turn_ids for c in chunk_session(Scope("u"), s1)] == [tuple(s1[i].id for i in w) for w in windows(len(s1))]
    assert all(c.offsets == () for c in chunk_session(Scope("u"), s1))


def test_the_paper_windows_stop_at_paper_chars_and_the_settings_switch_the_rules_off() -> None:
    turns = chat(["x " * 300, "y " * 300])  # no message above 650, but a window of 676 characters
    assert keeps_paper_windows(turns, ChunkSettings())
    assert not keeps_paper_windows(turns, ChunkSettings(paper_chars=650))
    assert keeps_paper_windows(turns, ChunkSettings(paper_chars=0))
    long = chat([REPLY])
    assert keeps_paper_windows(long, ChunkSettings.paper())
    assert all(c.offsets == () for c in chunk_session(Scope("u"), long, ChunkSettings.paper()))
    assert all(c.offsets == () for c in chunk_session(Scope("u"), long, ChunkSettings(passage_chars=0)))


def test_a_passage_context_gives_anchors_of_its_own_text_only() -> None:
    turns = chat([REPLY])
    contexts = chunk_session(Scope("u"), turns)
    by_id = {t.id: t for t in turns}
    last = next(c for c in contexts if c.offsets and "part 2 of 2" in c.text)
    anchors = extract_offline(last, by_id)
    assert anchors and all("Moving to a new city" not in a for a in anchors)
    assert any("canals" in a for a in anchors)


def test_passage_context_ids_are_stable_and_distinct() -> None:
    turns = chat([REPLY, REPLY])
    a = chunk_session(Scope("u"), turns)
    assert [c.id for c in a] == [c.id for c in chunk_session(Scope("u"), turns)]
    assert len({c.id for c in a}) == len(a)


def test_offsets_survive_the_json_of_a_result_and_old_json_reads_as_whole_messages() -> None:
    context = next(c for c in chunk_session(Scope("u"), chat([REPLY])) if c.offsets)
    result = SearchResult("q", (ContextHit(context, 1.0, rank=1),), ())
    data = to_jsonable(result)
    assert data["contexts"][0]["context"]["offsets"] == [list(o) for o in context.offsets]
    assert from_jsonable(SearchResult, data).contexts[0].context == context
    del data["contexts"][0]["context"]["offsets"]
    assert from_jsonable(SearchResult, data).contexts[0].context.offsets == ()


TEXTS = st.text(st.sampled_from("ab .\n"), min_size=1, max_size=2000)


@given(
    st.lists(
        st.tuples(st.sampled_from(["user", "assistant"]), TEXTS),
        min_size=1,
        max_size=12,
    )
)
def test_every_message_is_covered_once_by_its_pieces_and_every_window_fits(spec: list[tuple[str, str]]) -> None:
    settings = ChunkSettings()
    turns = [Turn(f"m{i}", "1", i, s, t) for i, (s, t) in enumerate(spec)]
    contexts = chunk_session(Scope("u"), turns, settings)
    by_id = {t.id: t for t in turns}
    if keeps_paper_windows(turns, settings):
        assert all(not c.offsets for c in contexts)
        return
    seen: dict[str, list[tuple[int, int]]] = {}
    for c in contexts:
        pieces = c.offsets or tuple((0, len(by_id[t].text)) for t in c.turn_ids)
        assert len(set(c.turn_ids)) == len(c.turn_ids), "two passages of one message never share a window"
        assert len(pieces) == 1 or sum(b - a for a, b in pieces) <= settings.chat_chars
        assert all(b - a <= settings.passage_chars for a, b in pieces) or len(pieces) == 1
        for tid, piece in zip(c.turn_ids, pieces, strict=True):
            seen.setdefault(tid, []).append(piece)
    assert list(seen) == [t.id for t in turns], "every message, in order"
    for tid, pieces in seen.items():
        text = by_id[tid].text
        rebuilt = "".join(text[a:b] for a, b in pieces)
        assert rebuilt.split() == text.split() or "".join(rebuilt.split()) == "".join(text.split())
