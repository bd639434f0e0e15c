"""Context selection and score normalisation."""

from __future__ import annotations

import numpy as np

from anchormem.index.snapshot import ScopeSnapshot
from anchormem.model import Context
from anchormem.search.scoring import normalise, shared_turn_mean
from anchormem.search.select import select_diverse, select_ranked


def _snapshot() -> ScopeSnapshot:
    windows = [("D1:1", "D1:2", "D1:3"), ("D1:3", "D1:4", "D1:5"), ("D1:5",), ("D2:1", "D2:2", "D2:3")]
    contexts = [Context(f"c{i}", w[0][1], i, w, None, "DATE: x\n" + " ".join(w)) for i, w in enumerate(windows)]
    return ScopeSnapshot(contexts, [], np.zeros((0, 4), np.float32))


def test_covered_tail_is_skipped_and_absorbed() -> None:
    snap = _snapshot()
    assert select_ranked(snap, [1, 2, 0], limit=3) == [1, 0]  # tail after its window: skipped
    assert select_ranked(snap, [2, 1, 0], limit=3) == [1, 0]  # tail before its window: dropped
    assert select_ranked(snap, [2, 1, 0], limit=3, skip_covered=2.0, absorb=False) == [2, 1, 0]


def test_limit_is_respected() -> None:
    assert select_ranked(_snapshot(), [3, 0, 1], limit=2) == [3, 0]


def test_diverse_selection_prefers_a_different_anchor() -> None:
    snap = _snapshot()
    rep = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]], dtype=np.float32)
    relevance = np.array([1.0, 0.95, 0.0, 0.9])
    assert select_diverse(snap, relevance, rep, limit=2, lam=1.0, pool=4) == [0, 1]
    assert select_diverse(snap, relevance, rep, limit=2, lam=0.7, pool=4) == [0, 3]


def test_normalise_maps_best_to_one_and_deep_ranks_to_zero() -> None:
    values = np.array([5.0, 3.0, 1.0, -np.inf])
    out = normalise(values, reference_rank=2)
    assert out.tolist() == [1.0, 0.5, 0.0, 0.0]
    assert normalise(np.array([2.0, 2.0])).tolist() == [1.0, 1.0]
    assert normalise(np.full(3, -np.inf)).tolist() == [0.0, 0.0, 0.0]
    assert normalise(np.zeros(0)).shape == (0,)


def test_shared_turn_mean_lifts_a_window_next_to_a_strong_one() -> None:
    snap = _snapshot()  # c0 and c1 share D1:3, c1 and the tail c2 share D1:5, c3 stands alone
    values = np.array([0.0, 0.9, 0.3, 0.6])
    out = shared_turn_mean(snap, values)
    assert np.allclose(out, [0.3, 0.9, 0.9, 0.6])  # c0: (0 + 0 + 0.9) / 3; the tail takes its window's
    assert np.all(out >= values)  # spreading never lowers a window


def test_shared_turn_mean_without_turns_keeps_values() -> None:
    snap = ScopeSnapshot([Context("c0", "1", 0, (), None, "x")], [], np.zeros((0, 4), np.float32))
    assert np.allclose(shared_turn_mean(snap, np.array([0.4])), [0.4])
