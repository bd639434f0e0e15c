"""Retrieval over small hand-made snapshots (hashing embedder, no model, no shared data)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from anchormem.config import RetrievalSettings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import ConfigError, InputError
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Event, Fact, stable_id
from anchormem.search.retrieve import RECIPES, Recipe, register_recipe, retrieve

EMB = HashEmbedder(dim=256)

SESSIONS = {
    "1": (
        "8 May, 2023",
        [
            ("D1:1", "Ana", "I adopted a dog from the shelter, his name is Pico."),
            ("D1:2", "Ben", "Congrats! I started learning the cello last month."),
            ("D1:3", "Ana", "Pico loves the beach, we walked along the coast."),
            ("D1:4", "Ben", "My cello teacher says I should practice scales."),
            ("D1:5", "Ana", "I am painting a portrait of Pico for my grandmother."),
        ],
    ),
    "2": (
        "20 May, 2023",
        [
            ("D2:1", "Ben", "I played my first cello recital on Saturday."),
            ("D2:2", "Ana", "I finished the portrait of Pico and gave it to my grandmother."),
            ("D2:3", "Ben", "It went well, I played a Bach suite."),
            ("D2:4", "Ana", "My grandmother hung the painting in her kitchen."),
        ],
    ),
}

FACTS = {  # turn id -> fact text
    "D1:1": "Ana adopted a dog named Pico from the shelter.",
    "D1:2": "Ben started learning the cello.",
    "D1:3": "Ana and Pico walked along the beach.",
    "D1:4": "Ben's cello teacher told him to practice scales.",
    "D1:5": "Ana is painting a portrait of Pico for her grandmother.",
    "D2:1": "Ben played his first cello recital on Saturday.",
    "D2:2": "Ana gave the finished portrait of Pico to her grandmother.",
    "D2:3": "Ben played a Bach suite at the recital.",
    "D2:4": "Ana's grandmother hung the painting in her kitchen.",
}


def build_snapshot(with_events: bool = True) -> ScopeSnapshot:
    contexts: list[Context] = []
    facts: list[Fact] = []
    for session, (date, turns) in SESSIONS.items():
        for pos, start in enumerate(range(0, len(turns), 2)):
            window = turns[start : start + 3]
            text = "\n".join([f"DATE: {date}"] + [f'{spk} said, "{txt}"' for _, spk, txt in window])
            ctx = Context(stable_id("ctx", session, str(pos)), session, pos, tuple(t for t, _, _ in window), date, text)
            contexts.append(ctx)
            owned = window if start == 0 else window[1:]  # each turn's fact in its first window
            for tid, _, _ in owned:
                facts.append(Fact(stable_id("fact", ctx.id, tid), ctx.id, FACTS[tid], "pack"))
    vectors = EMB.embed([f.text for f in facts])
    events: list[Event] = []
    if with_events:
        by_text = {f.text: f.id for f in facts}
        portrait = (FACTS["D1:5"], FACTS["D2:2"], FACTS["D2:4"])
        cello = (FACTS["D1:2"], FACTS["D2:1"])
        events = [
            Event(
                "evt-portrait",
                "Ana painted a portrait of Pico and gave it to her grandmother, who hung it.",
                tuple(by_text[t] for t in portrait),
                "pack",
            ),
            Event(
                "evt-cello",
                "Ben learned the cello and played his first recital.",
                (*tuple(by_text[t] for t in cello), "fact-unknown"),
                "pack",
            ),
        ]
    event_vectors = EMB.embed([e.text for e in events]) if events else np.zeros((0, EMB.dim), np.float32)
    return ScopeSnapshot(contexts, facts, vectors, events, event_vectors, embed_texts=EMB.embed)


def search(snapshot: ScopeSnapshot, query: str, **kw: object) -> object:
    settings = replace(RetrievalSettings(), **kw)  # type: ignore[arg-type]
    return retrieve(snapshot, query, EMB.embed([query])[0], settings)


@pytest.fixture
def snap() -> ScopeSnapshot:
    return build_snapshot()


def test_anchors_lead_to_their_own_contexts(snap: ScopeSnapshot) -> None:
    result = search(snap, "Who did Ana give the portrait of Pico to?")
    assert result.contexts
    for hit in result.contexts:
        assert hit.anchors, "every context shows the facts that led to it"
        for anchor in hit.anchors:
            assert anchor.fact.context_id == hit.context.id
    assert "D2:2" in result.turn_ids


@pytest.mark.parametrize("variant", sorted(RECIPES))
def test_every_variant_returns_best_first_with_ranks_and_keeps_reading_order(snap: ScopeSnapshot, variant: str) -> None:
    result = search(snap, "cello recital Bach", variant=variant, max_contexts=3)
    assert 1 <= len(result.contexts) <= 3
    assert [h.rank for h in result.contexts] == list(range(1, len(result.contexts) + 1))
    if RECIPES[variant].mode != "hybrid" or RECIPES[variant].mmr_lambda >= 1.0:
        scores = [h.score for h in result.contexts]
        assert scores == sorted(scores, reverse=True), "contexts come best first"
    reading = [snap.context_row[h.context.id] for h in result.in_reading_order()]
    assert reading == sorted(reading), "in_reading_order() gives conversation order"
    assert sorted(h.context.id for h in result.in_reading_order()) == sorted(h.context.id for h in result.contexts)
    assert result.turn_ids == list(dict.fromkeys(t for h in result.in_reading_order() for t in h.context.turn_ids))
    ids = [h.context.id for h in result.contexts]
    assert len(ids) == len(set(ids))


def test_the_default_returns_contexts_in_the_order_its_selection_took_them(snap: ScopeSnapshot) -> None:
    # maximal marginal relevance takes a context that adds something before one that repeats a context taken
    # already, even when the repeat scores higher: the block of a small budget takes them in this order
    query = "painting a portrait of Pico for my grandmother"
    result = retrieve(snap, query, EMB.embed([query])[0], RetrievalSettings(), trace=True)
    assert result.trace is not None
    steps = [t.picked_at for t in result.trace.contexts]
    assert None not in steps and steps == sorted(set(steps))  # type: ignore[type-var]
    scores = [h.score for h in result.contexts]
    assert scores != sorted(scores, reverse=True)  # the case this is about: a repeat scores above a later pick
    assert [h.rank for h in result.contexts] == list(range(1, len(scores) + 1))


def test_unknown_variant_is_a_config_error(snap: ScopeSnapshot) -> None:
    with pytest.raises(ConfigError):
        search(snap, "dog", variant="nope")


def test_query_vector_of_wrong_dimension_is_an_input_error(snap: ScopeSnapshot) -> None:
    with pytest.raises(InputError):
        retrieve(snap, "dog", np.ones(3, np.float32), RetrievalSettings())


def test_paper_variant_maps_top_k_facts_to_contexts(snap: ScopeSnapshot) -> None:
    query = "Ben cello teacher scales"
    result = search(snap, query, variant="paper", k_facts=1, k_events=1)
    top_fact = int(np.argmax(snap.fact_vectors @ EMB.embed([query])[0]))
    assert [h.context.id for h in result.contexts] == [snap.facts[top_fact].context_id]
    assert len(result.events) == 1


def test_events_carry_their_facts_and_contexts(snap: ScopeSnapshot) -> None:
    result = search(snap, "portrait for the grandmother", k_events=2, max_contexts=1)
    assert next(e.event.id for e in result.events) == "evt-portrait"
    hit = result.events[0]
    assert {f.text for f in hit.facts} == {FACTS["D1:5"], FACTS["D2:2"], FACTS["D2:4"]}
    assert set(hit.context_ids) == {f.context_id for f in hit.facts}
    cello = next(e for e in result.events if e.event.id == "evt-cello")
    assert len(cello.facts) == 2  # the unknown fact id is skipped
    for ctx_hit in result.contexts:
        for event_id in ctx_hit.via_events:
            event = next(e for e in result.events if e.event.id == event_id)
            assert ctx_hit.context.id in event.context_ids


def test_no_events_variant_and_bm25_return_no_events(snap: ScopeSnapshot) -> None:
    assert search(snap, "portrait", variant="no-events").events == ()
    assert search(snap, "portrait", variant="bm25").events == ()
    assert search(snap, "portrait", max_contexts=1).events


def test_bm25_variant_finds_the_lexical_match(snap: ScopeSnapshot) -> None:
    result = search(snap, "kitchen", variant="bm25")
    assert [h.context.turn_ids for h in result.contexts] == [("D2:3", "D2:4")]


def test_fully_covered_tail_context_is_skipped(snap: ScopeSnapshot) -> None:
    tail = next(c for c in snap.contexts if c.turn_ids == ("D1:5",))
    for variant in ("anchormem", "no-events", "bm25"):
        result = search(snap, "painting a portrait of Pico for my grandmother", variant=variant, max_contexts=10)
        turn_sets = [set(h.context.turn_ids) for h in result.contexts]
        for i, turns in enumerate(turn_sets):
            others = set().union(*(t for j, t in enumerate(turn_sets) if j != i))
            assert not turns <= others, (variant, tail.id)


def test_retrieval_is_deterministic(snap: ScopeSnapshot) -> None:
    assert search(snap, "what did Ben play?") == search(snap, "what did Ben play?")


def test_snapshot_without_events_or_facts() -> None:
    plain = build_snapshot(with_events=False)
    assert search(plain, "cello").events == ()
    bare = ScopeSnapshot(plain.contexts, [], np.zeros((0, EMB.dim), np.float32))
    result = search(bare, "cello recital")
    assert result.contexts and all(h.anchors == () for h in result.contexts)
    empty = ScopeSnapshot([], [], np.zeros((0, EMB.dim), np.float32))
    assert search(empty, "anything").contexts == ()


def test_mismatched_vectors_are_rejected() -> None:
    plain = build_snapshot(with_events=False)
    with pytest.raises(InputError):
        ScopeSnapshot(plain.contexts, plain.facts, plain.fact_vectors[:-1])


def test_chunks_variant_ranks_contexts_by_their_own_embedding() -> None:
    from anchormem.config import RetrievalSettings
    from anchormem.embed.hashing import HashEmbedder
    from anchormem.errors import ConfigError
    from anchormem.index.snapshot import ScopeSnapshot
    from anchormem.model import Context
    from anchormem.search.retrieve import retrieve

    emb = HashEmbedder()
    texts = ['DATE: d\nA said, "my dog Pico loves the beach"', 'DATE: d\nB said, "the cello recital was great"']
    contexts = [Context(f"c{i}", "1", i, (f"D1:{i}",), "d", t) for i, t in enumerate(texts)]
    empty = np.zeros((0, emb.dim), np.float32)
    snap = ScopeSnapshot(contexts, [], empty, embed_texts=lambda ts: emb.embed(ts))
    settings = RetrievalSettings(max_contexts=1, variant="chunks")
    result = retrieve(snap, "cello recital", emb.embed(["cello recital"])[0], settings)
    assert [h.context.id for h in result.contexts] == ["c1"] and result.events == ()
    with pytest.raises(ConfigError, match="needs an embedder"):
        retrieve(ScopeSnapshot(contexts, [], empty), "cello", emb.embed(["cello"])[0], settings)


def test_an_experiment_recipe_registers_like_a_public_one(snap: ScopeSnapshot) -> None:
    assert "anchormem-v1" not in RECIPES, "experiment recipes live in bench/, not in the public list"
    register_recipe("test-plain", Recipe(shared_turns=False, rerank=False, dense_temperature=0.0))
    try:
        q = "Who played a Bach suite?"
        res = retrieve(snap, q, EMB.embed([q])[0], RetrievalSettings(variant="test-plain", max_contexts=2))
        assert "D2:3" in res.turn_ids
        assert all(h.adjustments == () and h.score == h.relevance for h in res.contexts)
    finally:
        del RECIPES["test-plain"]


def test_an_event_whose_contexts_are_all_returned_is_left_out(snap: ScopeSnapshot) -> None:
    query = "Ana portrait of Pico for her grandmother, hung in the kitchen"
    wide = search(snap, query, k_events=2, max_contexts=10)
    returned = {h.context.id for h in wide.contexts}
    portrait = {
        c.id
        for c in snap.contexts
        for f in snap.facts
        if f.context_id == c.id and f.text in (FACTS["D1:5"], FACTS["D2:2"], FACTS["D2:4"])
    }
    assert portrait <= returned
    assert "evt-portrait" not in {e.event.id for e in wide.events}, "it adds nothing to the contexts"
    for event in wide.events:
        assert not set(event.context_ids) <= returned
    narrow = search(snap, query, k_events=2, max_contexts=1)
    assert "evt-portrait" in {e.event.id for e in narrow.events}, "it adds contexts that were not returned"
    paper = search(snap, query, k_events=2, max_contexts=10, variant="paper")
    assert len(paper.events) == 2, "the paper's recipe returns its top events as they are"
