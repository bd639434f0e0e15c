"""Associative event graph: candidate clusters of similar facts (paper §4.2).

For every seed fact f_i, its cluster N_i is f_i plus its top-N most similar other
facts with cosine similarity > τ. A seed with no such neighbour forms no candidate.
Redundancy pruning: O_max is the largest number of cluster facts that map to one
context; if O_max ≥ ⌈N/2⌉ the cluster is discarded. A kept cluster pairs each
distinct context with its first (most similar) fact: the input of event integration.
Clusters with the same fact set (mutual neighbours) are merged into one. Provisional anchors (a context's
stand-ins while its facts wait for a batch answer) are no one's neighbours.

Beyond the paper, :func:`change_probes` pairs a new fact with its nearest fact of another context below tau,
for the LLM to say whether one replaced the other (``GraphSettings.change_tau``; off by default).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from anchormem.index.neighbours import Near, exact_above
from anchormem.model import Fact, stable_id
from anchormem.store.protocol import Matrix

_BLOCK = 1024


@dataclass(frozen=True)
class Cluster:
    seed_id: str
    fact_ids: tuple[str, ...]  # seed first, then neighbours by decreasing similarity
    pairs: tuple[tuple[str, str], ...]  # (context_id, fact_id), one per distinct context

    @property
    def event_id(self) -> str:
        return stable_id("e", *sorted(self.fact_ids))


class LinkFacts(NamedTuple):
    """A scope's facts as linking reads them: the facts, their vectors row by row (a matrix, or
    :class:`~anchormem.index.rows.Blocks`) in insertion order as ``Store.fact_matrix`` gives them, each fact's
    row by id, and (optionally) an index that finds a row's neighbours above tau without a pass over all rows."""

    facts: Sequence[Fact]
    vectors: Any
    rows: Mapping[str, int]
    near: Near | None = None


@dataclass
class LinkReport:
    candidates: int = 0  # seeds with at least one neighbour above tau
    discarded: int = 0  # pruned by O_max >= ceil(N/2)
    merged: int = 0  # kept clusters whose fact set another kept cluster already had
    kept: list[Cluster] = field(default_factory=list)


def is_redundant(context_ids: Sequence[str], n_neighbors: int) -> bool:
    """The paper's pruning rule: O_max ≥ ⌈N/2⌉."""
    o_max = max(Counter(context_ids).values())
    return o_max >= math.ceil(n_neighbors / 2)


def build_clusters(
    facts: Sequence[Fact],
    vectors: Matrix,
    seed_ids: Sequence[str] | None = None,
    tau: float = 0.85,
    n_neighbors: int = 3,
    rows: Mapping[str, int] | None = None,
    near: Near | None = None,
) -> LinkReport:
    """Candidate clusters around ``seed_ids`` (all facts when None); neighbours come from all ``facts``.

    ``near(rows, tau)`` finds each seed row's neighbours above ``tau`` (an index: ``query.neighbours``);
    without it, a pass over all of ``vectors`` does."""
    report = LinkReport()
    if len(facts) < 2:
        return report
    index = rows if rows is not None else {f.id: i for i, f in enumerate(facts)}  # fact id -> row
    seeds = [index[s] for s in (seed_ids if seed_ids is not None else [f.id for f in facts]) if s in index]
    find = near if near is not None else (lambda block, t: exact_above(vectors, block, t))
    seen_sets: set[tuple[str, ...]] = set()
    for start in range(0, len(seeds), _BLOCK):
        block = seeds[start : start + _BLOCK]
        for (above, sims), i in zip(find(block, tau), block, strict=True):
            order = above[np.argsort(-sims, kind="stable")]
            order = np.asarray([j for j in order if facts[int(j)].source != "provisional"], dtype=np.int64)
            if order.size == 0:
                continue
            report.candidates += 1
            top = order[:n_neighbors]
            members = [facts[i], *(facts[int(j)] for j in top)]
            if is_redundant([f.context_id for f in members], n_neighbors):
                report.discarded += 1
                continue
            key = tuple(sorted(f.id for f in members))
            if key in seen_sets:
                report.merged += 1
                continue
            seen_sets.add(key)
            pairs: dict[str, str] = {}
            for f in members:
                pairs.setdefault(f.context_id, f.id)
            report.kept.append(
                Cluster(seed_id=facts[i].id, fact_ids=tuple(f.id for f in members), pairs=tuple(pairs.items()))
            )
    return report


def change_probes(
    facts: Sequence[Fact],
    vectors: Matrix,
    seed_ids: Sequence[str],
    low: float,
    high: float,
    clustered: set[frozenset[str]],
    rows: Mapping[str, int] | None = None,
    near: Near | None = None,
) -> list[Cluster]:
    """Pairs to ask whether one statement replaced another: each seed with its nearest fact of another context
    whose cosine lies in ``[low, high)`` (the same subject told in other words, below the event graph's tau:
    "lives in Lavapiés" / "moved to Carabanchel" 0.60 with MiniLM), unless a kept cluster holds the two
    already (``clustered``: the fact sets of pairs the clusters asked about). Provisional anchors take no part."""
    index = rows if rows is not None else {f.id: i for i, f in enumerate(facts)}
    seeds = [index[s] for s in seed_ids if s in index]
    find = near if near is not None else (lambda block, t: exact_above(vectors, block, t))
    out: dict[frozenset[str], Cluster] = {}
    for start in range(0, len(seeds), _BLOCK):
        block = seeds[start : start + _BLOCK]
        for (above, sims), i in zip(find(block, low), block, strict=True):
            seed = facts[i]
            if seed.source == "provisional":
                continue
            for k in np.argsort(-sims, kind="stable"):
                other, sim = facts[int(above[k])], float(sims[k])
                if sim >= high or other.context_id == seed.context_id or other.source == "provisional":
                    continue
                key = frozenset((seed.id, other.id))
                if key not in clustered and key not in out:
                    pairs = ((seed.context_id, seed.id), (other.context_id, other.id))
                    out[key] = Cluster(seed_id=seed.id, fact_ids=(seed.id, other.id), pairs=pairs)
                break  # the nearest fact of another context only
    return list(out.values())
