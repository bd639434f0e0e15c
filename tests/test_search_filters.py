"""Search filters as a restriction of a snapshot (``anchormem.search.filters``): which contexts, facts
and events stay, and which indexes the restriction takes from the whole snapshot."""

from __future__ import annotations

import numpy as np

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Event, Fact, Scope, Turn
from anchormem.search.filters import make_filters, passing_rows, restrict

S = Scope("ana")


def _snapshot() -> ScopeSnapshot:
    contexts = [
        Context(id=f"c{i}", session=str(i), position=0, turn_ids=(f"t{i}",), date=None, text=f"text {i}")
        for i in (1, 2)
    ]
    turns = [
        Turn(id="t1", session="1", position=0, speaker="A", text="x", metadata={"topic": "work"}),
        Turn(id="t2", session="2", position=0, speaker="A", text="y", timestamp="2024-05-01T10:00:00"),
    ]
    facts = [Fact(id=f"f{i}", context_id=f"c{i}", text=f"fact {i}") for i in (1, 2)]
    events = [
        Event(id="e-both", text="both", fact_ids=("f1", "f2")),
        Event(id="e-one", text="one", fact_ids=("f1",)),
    ]
    return ScopeSnapshot(
        contexts=contexts,
        facts=facts,
        fact_vectors=np.eye(2, dtype=np.float32),
        events=events,
        event_vectors=np.eye(2, dtype=np.float32),
        context_scopes=(S, S),
        load_turns=lambda: [(S, t) for t in turns],
    )


def test_an_event_stays_only_when_all_its_facts_pass() -> None:
    snap = _snapshot()
    part = restrict(snap, make_filters({"topic": "work"}))
    assert [c.id for c in part.contexts] == ["c1"] and [f.id for f in part.facts] == ["f1"]
    assert [e.id for e in part.events] == ["e-one"] and part.event_vectors.shape == (1, 2)
    assert part.context_scopes == (S,)


def test_restrictions_are_kept_and_a_full_pass_is_the_snapshot_itself() -> None:
    snap = _snapshot()
    wanted = make_filters(session="2")
    assert restrict(snap, wanted) is restrict(snap, wanted)
    assert restrict(snap, make_filters(since="2000-01-01", until="2100-01-01")) is not snap  # t1 has no time
    assert passing_rows(snap, make_filters(since="2024-05-01T10:00:00", until="2024-05-01T10:00:00")) == [1]
    assert restrict(snap, make_filters()) is snap


def test_a_restriction_takes_the_parent_indexes_sliced() -> None:
    snap = _snapshot()
    assert snap.fact_bm25.n_docs == 2  # built before: the restriction slices it too
    part = restrict(snap, make_filters(session="2"))
    for query in ("text 2", "fact 2", "text"):
        assert part.context_bm25.scores(query).tolist() == snap.context_bm25.scores(query)[[1]].tolist()
        assert part.fact_bm25.scores(query).tolist() == snap.fact_bm25.scores(query)[[1]].tolist()
    assert part.context_share == [snap.context_share[1]] and part.context_turns == [snap.context_turns[1]]
    ctx_rows, turn_rows, _ = part.turn_segments
    assert ctx_rows.tolist() == [0] and turn_rows.tolist() == [snap.turn_segments[1][1]]


def test_a_part_of_a_memory_not_in_english_weighs_word_pieces_as_the_whole_memory_does() -> None:
    texts = [
        "Wir haben jetzt neun Bienenvölker, und der Umzug mit dem Bus hat gut geklappt.",
        "Die Vereinsordnung regelt den Beitrag und die Umlage je gemeldetem Volk für die Mitglieder.",
    ]
    contexts = [
        Context(id=f"c{i}", session=str(i), position=0, turn_ids=(f"t{i}",), date=None, text=texts[i - 1])
        for i in (1, 2)
    ]
    turns = [
        Turn(id="t1", session="1", position=0, speaker="A", text=texts[0], metadata={"topic": "bees"}),
        Turn(id="t2", session="2", position=0, speaker="A", text=texts[1]),
    ]
    snap = ScopeSnapshot(
        contexts=contexts,
        facts=[],
        fact_vectors=np.zeros((0, 2), dtype=np.float32),
        events=[],
        event_vectors=np.zeros((0, 2), dtype=np.float32),
        context_scopes=(S, S),
        load_turns=lambda: [(S, t) for t in turns],
    )
    part = restrict(snap, make_filters({"topic": "bees"}))  # before any search built the whole memory's index
    assert [c.id for c in part.contexts] == ["c1"]
    query = "Wie viele Völker hat sie?"
    assert part.context_subwords.scores(query)[0] == snap.context_subwords.scores(query)[0] > 0.0
