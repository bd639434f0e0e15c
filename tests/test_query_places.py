"""How many contexts a result holds when chat windows differ in size, and what extractive events
say beside them (hand-made snapshots, no model, no shared data)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from anchormem.config import ChunkSettings, RetrievalSettings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.ingest.chunk import chunk_session
from anchormem.model import Context, Event, Fact, Scope, Turn
from anchormem.search.events import what_they_add
from anchormem.search.retrieve import retrieve
from anchormem.search.select import select_diverse, select_ranked

EMB = HashEmbedder(dim=64)


def _ctx(i: int, session: str, turns: tuple[str, ...], chars: int) -> Context:
    header = "DATE: x\n"
    return Context(f"c{i}", session, i, turns, None, header + "y" * (chars - len(header)))


def _chat_snapshot(window_chars: int = 100) -> ScopeSnapshot:
    """Session 1: four windows cut by length (no shared turn) of 100, 50, 25 and 200 characters;
    session 2: the paper's overlapping windows, 30 characters each; session 3: one short window."""
    contexts = [
        _ctx(0, "1", ("a1", "a2"), 100),
        _ctx(1, "1", ("a3",), 50),
        _ctx(2, "1", ("a4",), 25),
        _ctx(3, "1", ("a5", "a6"), 200),
        _ctx(4, "2", ("b1", "b2", "b3"), 30),
        _ctx(5, "2", ("b3", "b4", "b5"), 30),
        _ctx(6, "3", ("d1",), 10),
    ]
    return ScopeSnapshot(contexts, [], np.zeros((0, 4), np.float32), window_chars=window_chars)


def test_a_window_cut_by_length_takes_the_share_of_a_full_window_it_fills() -> None:
    snap = _chat_snapshot()
    assert snap.context_share == [1.0, 0.5, 0.25, 1.0, 1.0, 1.0, 1.0]
    assert _chat_snapshot(window_chars=0).context_share == [1.0] * 7, "chat_chars = 0: every window counts 1"


def test_short_chat_windows_leave_room_for_more_contexts() -> None:
    snap = _chat_snapshot()
    assert select_ranked(snap, [1, 2, 0, 3], limit=2) == [1, 2, 0]  # 0.5 + 0.25 + 1 fits in 2 places
    assert select_ranked(snap, [1, 0, 3], limit=2) == [1, 0], "1.5 + 1 does not fit: selection stops"
    assert select_ranked(snap, [4, 5, 6], limit=2) == [4, 5], "the paper's windows count one each"
    rep = np.eye(7, 4, dtype=np.float32)
    relevance = np.array([0.7, 0.9, 0.8, 0.1, 0.0, 0.0, 0.0])
    assert select_diverse(snap, relevance, rep, limit=2, lam=1.0, pool=7) == [1, 2, 0]


def test_a_text_budget_skips_what_does_not_fit_and_keeps_the_best() -> None:
    snap = _chat_snapshot()
    ranked = [3, 0, 1, 2, 6]  # 200, 100, 50, 25 and 10 characters
    assert select_ranked(snap, ranked, 10, max_chars=180) == [3], "the best is taken even past the budget"
    assert select_ranked(snap, [0, 3, 1, 2, 6], 10, max_chars=180) == [0, 1, 2], "the 200 skipped, smaller ones fit"
    assert select_ranked(snap, ranked, 10, max_chars=None) == ranked


def _chat(texts: list[tuple[str, str]]) -> list[Turn]:
    return [Turn(f"D1:{i}", "1", i - 1, speaker, text, "1 May 2023") for i, (speaker, text) in enumerate(texts, 1)]


def test_chunked_chat_windows_are_counted_by_their_text() -> None:
    scope = Scope(user_id="u")
    turns = _chat([("Kim", "a" * 60), ("Kim", "b" * 60), ("Lee", "c" * 20), ("Lee", "d" * 20), ("Kim", "e" * 10)])
    contexts = chunk_session(scope, turns, ChunkSettings(chat_chars=130))
    assert [c.turn_ids for c in contexts] == [("D1:1", "D1:2"), ("D1:3", "D1:4", "D1:5")]
    snap = ScopeSnapshot(contexts, [], np.zeros((0, 4), np.float32), window_chars=130)
    assert snap.context_share == [min(1.0, len(c.text) / 130) for c in contexts]
    assert snap.context_share[1] < 1.0, "the last window of the session holds less than a full one"


def _event_snapshot() -> ScopeSnapshot:
    contexts = [_ctx(i, "1", (f"t{i}",), 20) for i in range(4)]
    texts = [
        (0, "Ana adopted Pico."),
        (1, "Ana walked Pico on the beach."),
        (2, "Ana adopted Pico."),  # the same sentence as a fact of context 0
        (2, "Ana painted Pico."),
        (3, "Ana framed the painting."),
    ]
    facts = [Fact(f"f{i}", f"c{row}", text, "offline") for i, (row, text) in enumerate(texts)]
    events = [  # extractive events hold their facts' sentences, each once (``extractive_event``)
        Event(
            "e-walk",
            "Ana adopted Pico. Ana walked Pico on the beach. Ana painted Pico.",
            ("f0", "f1", "f2", "f3"),
            "extractive",
        ),
        Event("e-paint", "Ana painted Pico. Ana framed the painting.", ("f3", "f4"), "extractive"),
        Event("e-llm", "Ana adopted Pico and painted him.", ("f0", "f3"), "llm"),
    ]
    vectors = EMB.embed([f.text for f in facts])
    events_vectors = EMB.embed([e.text for e in events])
    return ScopeSnapshot(contexts, facts, vectors, events, events_vectors, window_chars=0)  # one place each


def test_an_extractive_event_says_only_what_the_returned_contexts_do_not() -> None:
    snap = _event_snapshot()
    shown = what_they_add(snap, [(0, 0.9), (1, 0.8), (2, 0.7)], returned=[0, 1])
    assert shown[0].text == "Ana painted Pico.", "context 0 and 1 sentences left out, also as facts of context 2"
    assert shown[1].text == "Ana framed the painting.", "a sentence the better event said is not said again"
    assert shown[2].text == "Ana adopted Pico and painted him.", "an LLM's narrative stays whole"
    assert shown[0].fact_ids == ("f0", "f1", "f2", "f3"), "provenance keeps every source fact"


@pytest.mark.parametrize("max_contexts", [1, 2])
def test_retrieval_returns_events_trimmed_and_never_an_empty_one(max_contexts: int) -> None:
    snap = _event_snapshot()
    settings = replace(RetrievalSettings(), max_contexts=max_contexts, k_events=3)
    query = "Ana painted Pico"
    result = retrieve(snap, query, EMB.embed([query])[0], settings)
    returned = {h.context.id for h in result.contexts}
    held = {f.text for f in snap.facts if f.context_id in returned}
    said: list[str] = []
    assert any(hit.event.source == "extractive" for hit in result.events)
    for hit in result.events:
        assert hit.event.text
        if hit.event.source == "extractive":
            sentences = [s for s in (f.text for f in snap.facts) if s in hit.event.text]
            assert not set(sentences) & held
            assert not set(sentences) & set(said)
            said.extend(sentences)
