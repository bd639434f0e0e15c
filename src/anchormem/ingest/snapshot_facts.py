"""Linking reads a scope's facts from the snapshot search holds: the facts, their vectors and rows as the
process already has them, and the quickest way it has to a fact's neighbours (a big PostgreSQL scope's HNSW
index, else the snapshot's neighbour index, else none: a pass over every row)."""

from __future__ import annotations

from functools import partial

from anchormem.index import ann
from anchormem.index.cache import SnapshotCache
from anchormem.ingest.link import LinkFacts
from anchormem.ingest.pipeline import FactReader
from anchormem.model import Scope


def snapshot_facts(snapshots: SnapshotCache) -> FactReader:
    """A :data:`~anchormem.ingest.pipeline.FactReader` over ``snapshots``: each scope's snapshot, grown by the
    add."""

    def read(scope: Scope) -> LinkFacts:
        snap = snapshots.get(scope)
        near = ann.near(snap)  # a big PostgreSQL scope: through its HNSW index
        if near is None:
            index = snap.fact_neighbours
            near = partial(index.above, snap.fact_vectors) if index is not None else None
        return LinkFacts(snap.facts, snap.fact_vectors, snap.fact_row, near)

    return read
