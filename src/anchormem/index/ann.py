"""Search of a big PostgreSQL scope through its own HNSW index, instead of the in-process fact matrix.

A scope that has a usable index (built by ``anchormem maintenance ann-index`` for scopes of
:data:`~anchormem.store.pg_ann.MIN_FACTS` facts and more; ``PostgresStore.ann_indexed``) is loaded without
its fact matrix (:func:`load`): its facts as records, their vectors left in the store
(:class:`~anchormem.index.store_rows.StoreRows`). ``RetrievalSettings.ann_index = False`` keeps every scope on
the matrix. Every other scope (all of SQLite, PostgreSQL scopes without an index) is loaded and searched exactly
as before: nothing here runs for it.

The query's fact scores (:func:`fact_scores`) are then a candidate list from the index, the ``n`` facts nearest the
query (:func:`~anchormem.search.recipes.candidate_count`: at least ``RetrievalSettings.ann_candidates`` and every
depth the recipe reads), with the database's inner products; every fact outside the list gets a floor just below the
list's last score, so none outranks a candidate, and every consumer of the scores (the contexts' soft maximum, the
anchors, the subjects, the selection) reads them as it reads the matrix's. The rows a search needs as vectors (the
selection's and the subjects' best anchors) are fetched by id; a speaker's anchor mean is computed by the database.
Linking the facts of an add finds each new fact's neighbours through the index (:func:`near`) rather than the matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from anchormem.errors import ConfigError
from anchormem.index.neighbours import Found, Near
from anchormem.index.rows import Blocks
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.index.store_rows import StackedRows, StoreRows, VectorSource
from anchormem.model import Scope
from anchormem.parts import Parts
from anchormem.store.capabilities import AnnIndex

MIN_CANDIDATES = 1000  # the default of ``RetrievalSettings.ann_candidates`` (pgvector's largest ef_search)
RESCORE = 4000  # facts of the candidates' contexts scored exactly beside the candidates (one query)
NEAR_K = 32  # nearest facts read per new fact when linking (its neighbours above tau among them)


def indexed(parts: Parts, scope: Scope) -> bool:
    """Whether ``scope`` is searched through its HNSW index: the setting allows it and the store has one."""
    if not parts.settings.retrieval.ann_index:
        return False
    store = parts.store
    return isinstance(store, AnnIndex) and store.ann_indexed(scope)


def load(parts: Parts, scope: Scope) -> ScopeSnapshot:
    """The scope's snapshot with its fact vectors left in the store (the module docstring)."""
    store = parts.store
    if not isinstance(store, AnnIndex):
        raise ConfigError(f"{type(store).__name__} keeps no ANN index: its scopes load with their fact vectors")
    source: VectorSource = store
    facts = store.facts(scope)
    events, event_vectors = store.event_matrix(scope)
    contexts = store.contexts(scope)
    dim = int(store.get_meta("embedder_dim") or 0) or parts.embedder.dim
    return ScopeSnapshot(
        contexts=contexts,
        facts=facts,
        fact_vectors=StoreRows(source, scope, [f.id for f in facts], dim),
        events=events,
        event_vectors=event_vectors,
        embed_texts=parts.embedder.embed,
        window_chars=parts.settings.chunking.chat_chars,
        context_scopes=(scope,) * len(contexts),
        load_turns=lambda: [(scope, turn) for turn in store.turns(scope)],
    )


def fact_scores(snapshot: ScopeSnapshot, vector: npt.NDArray[np.float32], n: int) -> npt.NDArray[np.floating]:
    """Each fact's score for ``vector``: ``fact_vectors @ vector`` for vectors held in the process (exactly as
    ever); through the index for rows left in the store (the module docstring)."""
    return ranked_facts(snapshot, vector, n)[0]


def ranked_facts(
    snapshot: ScopeSnapshot, vector: npt.NDArray[np.float32], n: int
) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.int64] | None]:
    """:func:`fact_scores` and, for rows left in the store, the candidate rows best first (ties: lower row);
    None for vectors held in the process (every row was scored)."""
    vectors = snapshot.fact_vectors
    q = np.asarray(vector, dtype=np.float32).ravel()
    if not isinstance(vectors, StoreRows | StackedRows):
        return vectors @ q, None
    out = np.empty(len(vectors), dtype=np.float32)
    found: list[npt.NDArray[np.int64]] = []
    parts: list[tuple[int, Blocks]] = [(0, vectors)] if isinstance(vectors, StoreRows) else vectors.offsets()
    for start, part in parts:
        stop = start + len(part)
        if isinstance(part, StoreRows):
            rows, scores, floor = _candidates(snapshot, part, q, n, start, stop)
            out[start:stop] = floor
            out[rows] = scores
            found.append(rows)
        else:  # a scope held in the process: every row, exactly
            out[start:stop] = part @ q
            found.append(np.arange(start, stop, dtype=np.int64))
    rows = np.concatenate(found) if found else np.zeros(0, np.int64)
    return out, rows[np.lexsort((rows, -out[rows]))]


def _candidates(
    snapshot: ScopeSnapshot, part: StoreRows, q: npt.NDArray[np.float32], n: int, start: int, stop: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32], np.float32]:
    """The part's candidate rows (snapshot rows), their scores, and the floor for its other rows."""
    hits = part.source.nearest_facts(part.scope, q, n)
    if not hits:
        return np.zeros(0, np.int64), np.zeros(0, np.float32), np.float32(-1.0)
    rows = snapshot.fact_row.rows_of([fid for fid, _ in hits])
    scores = np.asarray([s for _, s in hits], dtype=np.float32)
    floor = np.nextafter(np.float32(scores.min()), np.float32(-np.inf))
    keep = (rows >= start) & (rows < stop)  # a fact stored since the snapshot was made is not one of its rows
    rows, scores = rows[keep], scores[keep]
    more, more_scores = _context_mates(snapshot, part, q, rows, start)
    return np.concatenate([rows, more]), np.concatenate([scores, more_scores]), floor


def _context_mates(
    snapshot: ScopeSnapshot, part: StoreRows, q: npt.NDArray[np.float32], rows: npt.NDArray[np.int64], start: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """The other facts of the candidates' contexts, best context first, up to :data:`RESCORE` of them, scored
    exactly: a context's soft maximum reads all of its facts, and a floor in the place of a fact close to its best
    would lift it."""
    taken = set(rows.tolist())
    extra: list[int] = []
    seen: set[int] = set()
    fact_context = snapshot.fact_context
    for row in rows.tolist():
        context = int(fact_context[row])
        if context < 0 or context in seen:
            continue
        seen.add(context)
        extra.extend(f for f in snapshot.context_facts[context] if f not in taken and f >= start)
        if len(extra) >= RESCORE:
            break
    if not extra:
        return np.zeros(0, np.int64), np.zeros(0, np.float32)
    local = [f - start for f in extra]
    ids = part.ids(local)
    remote = [i for i in ids if i is not None]
    found = part.source.fact_scores(part.scope, q, remote) if remote else {}
    held = [j for j, i in enumerate(ids) if i is None]  # rows this process added: their vectors are here
    held_scores = part[np.asarray([local[j] for j in held], dtype=np.int64)] @ q if held else np.zeros(0)
    scores = np.empty(len(extra), dtype=np.float32)
    known = np.ones(len(extra), dtype=bool)
    for j, i in enumerate(ids):
        if i is not None:
            value = found.get(i)
            known[j] = value is not None  # deleted since the snapshot was made: keeps the floor
            scores[j] = value if value is not None else 0.0
    scores[held] = held_scores
    return np.asarray(extra, dtype=np.int64)[known], scores[known]


def near(snapshot: ScopeSnapshot) -> Near | None:
    """For linking an add's facts: each seed row's neighbours above tau, found through the index (None for a
    snapshot whose vectors the process holds: the neighbour index or a pass over the matrix finds them)."""
    vectors = snapshot.fact_vectors
    if not isinstance(vectors, StoreRows):
        return None
    part = vectors

    def above(seeds: Sequence[int], tau: float) -> Found:
        out: Found = []
        queries = part[np.asarray(seeds, dtype=np.int64)]
        for seed, q in zip(seeds, queries, strict=True):
            hits = part.source.nearest_facts(part.scope, q, NEAR_K)
            rows = snapshot.fact_row.rows_of([fid for fid, _ in hits])
            sims = np.asarray([s for _, s in hits], dtype=np.float32)
            keep = (rows >= 0) & (rows != int(seed)) & (sims > tau)
            order = np.argsort(rows[keep], kind="stable")
            out.append((rows[keep][order].astype(np.int64), sims[keep][order]))
        return out

    return above
