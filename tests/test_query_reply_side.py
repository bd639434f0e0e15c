"""Of two windows that share the turn holding their best anchor, the one the reply to it follows ranks first when
that turn asks something (``anchormem.search.scoring.reply_side``). Snapshots built by hand, vectors chosen."""

from __future__ import annotations

import numpy as np

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context, Fact
from anchormem.search.scoring import reply_side

DATE = "6:10 pm on 4 March, 2024"
TURNS = {
    "D1:1": ("Tomás", "I started the new job at the shipyard museum."),
    "D1:2": ("Priya", "A museum job, that's perfect for you. What do you do there?"),
    "D1:3": ("Tomás", "I restore the old wooden boat models."),
    "D1:4": ("Priya", "Lovely."),
}


def snapshot(windows: list[tuple[str, ...]], turns: dict[str, tuple[str, str]] = TURNS) -> ScopeSnapshot:
    """One context per window, one anchor per sentence of each of its turns (as the offline path cuts them)."""
    contexts, facts = [], []
    for i, ids in enumerate(windows):
        lines = "\n".join(f'{turns[t][0]} said, "{turns[t][1]}"' for t in ids)
        contexts.append(Context(f"c{i}", "1", i, ids, DATE, f"DATE: {DATE}\n{lines}"))
        for t in ids:
            speaker, text = turns[t]
            for sentence in text.replace("? ", "?|").replace(". ", ".|").split("|"):
                facts.append(Fact(f"f{len(facts)}", f"c{i}", f"{speaker}: {sentence}", "offline"))
    rng = np.random.default_rng(0)
    return ScopeSnapshot(contexts, facts, rng.normal(size=(len(facts), 4)).astype(np.float32))


def scores_for(snap: ScopeSnapshot, best: str) -> np.ndarray:
    """Fact scores: every copy of the anchor ``best`` 0.9, the rest 0.1."""
    return np.array([0.9 if f.text == best else 0.1 for f in snap.facts])


def test_the_window_the_reply_follows_takes_the_higher_value() -> None:
    snap = snapshot([("D1:1", "D1:2"), ("D1:2", "D1:3", "D1:4")])
    fact_scores = scores_for(snap, "Priya: A museum job, that's perfect for you.")
    moved = reply_side(snap, np.array([1.0, 0.8]), [0, 1], fact_scores)
    assert moved.tolist() == [0.8, 1.0]


def test_nothing_moves_when_the_shared_turn_asks_nothing() -> None:
    turns = dict(TURNS, **{"D1:2": ("Priya", "A museum job, that's perfect for you.")})
    snap = snapshot([("D1:1", "D1:2"), ("D1:2", "D1:3", "D1:4")], turns)
    fact_scores = scores_for(snap, "Priya: A museum job, that's perfect for you.")
    assert reply_side(snap, np.array([1.0, 0.8]), [0, 1], fact_scores).tolist() == [1.0, 0.8]


def test_nothing_moves_when_the_best_anchor_is_not_in_the_shared_turn() -> None:
    snap = snapshot([("D1:1", "D1:2"), ("D1:2", "D1:3", "D1:4")])
    fact_scores = scores_for(snap, "Tomás: I started the new job at the shipyard museum.")
    assert reply_side(snap, np.array([1.0, 0.8]), [0, 1], fact_scores).tolist() == [1.0, 0.8]


def test_windows_that_share_no_turn_or_already_rank_the_reply_first_keep_their_values() -> None:
    apart = snapshot([("D1:1", "D1:2"), ("D1:3", "D1:4")])
    question = scores_for(apart, "Priya: What do you do there?")
    assert reply_side(apart, np.array([1.0, 0.8]), [0, 1], question).tolist() == [1.0, 0.8]
    shared = snapshot([("D1:1", "D1:2"), ("D1:2", "D1:3", "D1:4")])
    question = scores_for(shared, "Priya: What do you do there?")
    assert reply_side(shared, np.array([0.7, 0.8]), [0, 1], question).tolist() == [0.7, 0.8]
    assert reply_side(shared, np.array([1.0, 0.8]), [1], question).tolist() == [1.0, 0.8]  # row 0 not asked about
