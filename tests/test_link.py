"""The AEG candidate clusters and the paper's pruning rule, on hand-made vectors."""

from __future__ import annotations

import numpy as np

from anchormem.ingest.link import build_clusters, is_redundant
from anchormem.model import Fact


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def _facts(contexts: list[str]) -> list[Fact]:
    return [Fact(id=f"f{i}", context_id=c, text=f"fact {i}") for i, c in enumerate(contexts)]


def test_pruning_rule_is_o_max_at_least_half_n_rounded_up() -> None:
    assert is_redundant(["c1", "c1", "c2"], 3)  # O_max 2 >= ceil(3/2) = 2
    assert not is_redundant(["c1", "c2", "c3"], 3)  # O_max 1
    assert not is_redundant(["c1", "c1", "c2", "c3", "c4", "c5"], 5)  # O_max 2 < 3
    assert is_redundant(["c1", "c1", "c1", "c2"], 5)


def test_cluster_kept_when_facts_come_from_different_contexts() -> None:
    facts = _facts(["c1", "c2", "c3", "c4"])
    vecs = np.stack([_unit(1, 0.05, 0), _unit(1, 0.0, 0.05), _unit(1, 0.04, 0.04), _unit(0, 0, 1)])
    rep = build_clusters(facts, vecs, seed_ids=["f0"], tau=0.85, n_neighbors=3)
    assert rep.candidates == 1 and rep.discarded == 0
    (cluster,) = rep.kept
    assert cluster.fact_ids[0] == "f0" and set(cluster.fact_ids) == {"f0", "f1", "f2"}
    assert cluster.pairs[0] == ("c1", "f0")
    assert {c for c, _ in cluster.pairs} == {"c1", "c2", "c3"}


def test_cluster_discarded_by_o_max() -> None:
    facts = _facts(["c1", "c1", "c2"])  # two of three facts share a context
    vecs = np.stack([_unit(1, 0.05, 0), _unit(1, 0, 0.05), _unit(1, 0.03, 0.03)])
    rep = build_clusters(facts, vecs, seed_ids=["f0"], tau=0.85, n_neighbors=3)
    assert rep.candidates == 1 and rep.discarded == 1 and rep.kept == []


def test_threshold_tau_excludes_dissimilar_neighbours() -> None:
    facts = _facts(["c1", "c2", "c3"])
    vecs = np.stack([_unit(1, 0, 0), _unit(0.8, 0.6, 0), _unit(0, 1, 0)])  # cos(f0,f1) = 0.8
    assert build_clusters(facts, vecs, seed_ids=["f0"], tau=0.85).candidates == 0
    rep = build_clusters(facts, vecs, seed_ids=["f0"], tau=0.75)
    assert rep.candidates == 1 and set(rep.kept[0].fact_ids) == {"f0", "f1"}


def test_top_n_limits_the_neighbours_and_pairs_one_fact_per_context() -> None:
    facts = _facts(["c0", "c1", "c2", "c3", "c4", "c5"])
    base = _unit(1, 0, 0)
    vecs = np.stack([base] + [_unit(1, 0.01 * i, 0.02 * i) for i in range(1, 6)])
    rep = build_clusters(facts, vecs, seed_ids=["f0"], tau=0.5, n_neighbors=3)
    (cluster,) = rep.kept
    assert cluster.fact_ids == ("f0", "f1", "f2", "f3")  # the three most similar, in order
    assert len(cluster.pairs) == 4


def test_mutual_neighbours_give_one_event() -> None:
    facts = _facts(["c1", "c2"])
    vecs = np.stack([_unit(1, 0.01, 0), _unit(1, 0, 0.01)])
    rep = build_clusters(facts, vecs, tau=0.85, n_neighbors=3)
    assert rep.candidates == 2 and len(rep.kept) == 1 and rep.merged == 1
