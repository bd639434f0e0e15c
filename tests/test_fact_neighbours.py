"""The neighbour index that links new facts (``index.neighbours``) finds exactly what a pass over every fact
finds, after rows are added and removed too; linking through it builds the same events; and a forgotten fact
never stays in it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import anchormem.index.neighbours as neighbours_module
import anchormem.index.snapshot as snapshot_module
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index.neighbours import FactNeighbours, Found, exact_above
from anchormem.index.rows import Blocks
from anchormem.ingest.link import build_clusters
from anchormem.memory import Memory
from anchormem.model import Fact, Scope


def _clustered(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    """Unit vectors in tight groups (so many pairs lie above tau), some exact duplicates."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(max(1, n // 6), dim))
    rows = centres[rng.integers(0, len(centres), n)] + rng.normal(scale=0.25, size=(n, dim))
    rows[7::7] = rows[6:-1:7][: len(rows[7::7])]  # duplicates: equal products, ties kept in row order
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _same(a: Found, b: Found) -> bool:
    return len(a) == len(b) and all(
        np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("tau", [0.5, 0.85, 0.95])
def test_the_index_finds_what_a_pass_over_all_rows_finds(tau: float) -> None:
    vectors = _clustered(600)
    rows = list(range(0, 600, 5))
    found = FactNeighbours.build(vectors, directions=8).above(vectors, rows, tau)
    assert _same(found, exact_above(vectors, rows, tau))
    assert sum(len(r) for r, _ in found) > 0
    for (near, sims), i in zip(found, rows, strict=True):  # the products themselves, the row itself left out
        assert i not in near and np.all(sims > tau)
        assert np.allclose(sims, vectors[near] @ vectors[i], atol=1e-5)


@pytest.mark.parametrize("queries", [1, 2, 7, 300])
def test_products_block_by_block_are_the_rows_times_the_queries(queries: int) -> None:
    vectors = _clustered(700, seed=3)
    blocks = Blocks.of(vectors[:400]).plus(vectors[400:600]).plus(vectors[600:650]).plus(vectors[650:])
    assert len(blocks.blocks) > 1
    left = vectors[np.random.default_rng(4).integers(0, 700, queries)]
    got = blocks.times_rows(left)
    assert got.shape == (queries, 700)
    assert np.allclose(got, left.astype(np.float64) @ vectors.T.astype(np.float64), atol=1e-5)


@pytest.mark.parametrize("queries", [1, 3, 40])
def test_the_index_and_the_pass_find_the_rows_a_float64_pass_finds(queries: int) -> None:
    vectors = _clustered(800, seed=5)
    blocks = Blocks.of(vectors[:500]).plus(vectors[500:])
    rows = list(range(0, 800, 800 // queries))[:queries]
    exact = vectors.astype(np.float64) @ vectors.astype(np.float64).T
    for found in (
        FactNeighbours.build(blocks, directions=8).above(blocks, rows, 0.85),
        exact_above(blocks, rows, 0.85),
    ):
        for (near, _), i in zip(found, rows, strict=True):
            clear = {int(j) for j in np.flatnonzero(exact[i] > 0.85 + 1e-5) if j != i}  # not on the edge
            assert clear <= set(near.tolist())
            assert np.all(exact[i, near] > 0.85 - 1e-5)


def test_a_changed_index_finds_what_a_pass_over_the_changed_rows_finds() -> None:
    vectors = _clustered(900, seed=1)
    blocks = Blocks.of(vectors[:500])
    index = FactNeighbours.build(blocks, directions=6)
    rng = np.random.default_rng(2)
    for start in range(500, 900, 40):  # an agent's adds: re-cut rows leave, new rows arrive
        gone = sorted({int(len(blocks) - 1 - rng.integers(0, 5)), int(rng.integers(0, len(blocks)))})
        added = vectors[start : start + 40]
        blocks = blocks.without(gone).plus(added)
        index = index.changed(gone, added)
        assert len(index) == len(blocks)
    rows = list(range(0, len(blocks), 3))
    assert _same(index.above(blocks, rows, 0.85), exact_above(blocks.dense(), rows, 0.85))
    assert _same(index.above(blocks, rows, 0.85), FactNeighbours.build(blocks).above(blocks, rows, 0.85))


def test_an_index_refuses_a_matrix_it_does_not_describe() -> None:
    vectors = _clustered(50)
    with pytest.raises(ValueError):
        FactNeighbours.build(vectors).above(vectors[:40], [0], 0.85)


def test_linking_through_the_index_keeps_the_clusters() -> None:
    vectors = _clustered(400, seed=3)
    facts = [Fact(id=f"f{i}", context_id=f"c{i // 3}", text=f"fact {i}") for i in range(len(vectors))]
    seeds = [f.id for f in facts[::4]]
    index = FactNeighbours.build(vectors, directions=8)
    plain = build_clusters(facts, vectors, seed_ids=seeds, tau=0.85, n_neighbors=3)
    fast = build_clusters(
        facts, vectors, seed_ids=seeds, tau=0.85, n_neighbors=3, near=lambda rows, t: index.above(vectors, rows, t)
    )
    assert plain.kept and plain == fast


def test_removing_rows_keeps_views_of_what_came_before() -> None:
    whole = np.arange(40, dtype=np.float32).reshape(20, 2)
    blocks = Blocks([whole[:12], whole[12:]], 2)
    for gone in ([11], [0, 19], [3, 4, 15], list(range(12, 20))):
        out = blocks.without(gone)
        assert np.array_equal(out.dense(), np.delete(whole, gone, axis=0))
        assert np.array_equal(out[[0, len(out) - 1]], np.delete(whole, gone, axis=0)[[0, -1]])
    assert blocks.without([11]).blocks[0].base is not None  # the rows before a removed one: not copied


def _counting_passes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of query rows each bound pass scores (a remembered query takes none)."""
    passes: list[int] = []
    real = neighbours_module._scored

    def counted(vectors: Any, queries: Any, bound: Any, tau: float) -> Found:
        passes.append(len(queries))
        return real(vectors, queries, bound, tau)

    monkeypatch.setattr(neighbours_module, "_scored", counted)
    return passes


@pytest.mark.parametrize("tau", [0.5, 0.85])
def test_remembered_queries_find_what_a_pass_finds_as_windows_are_re_cut(
    tau: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    vectors = _clustered(1200, seed=4)
    blocks = Blocks.of(vectors[:600])
    index = FactNeighbours.build(blocks, directions=8)
    passes = _counting_passes(monkeypatch)
    window = list(range(590, 600))  # the rows of the last window, re-cut by every add
    asked = 0
    for start in range(600, 1200, 30):  # each add: the window's rows leave and come back with new rows after them
        again = blocks[window]
        new = vectors[start : start + 30 : 3]
        gone = [*window, int(np.random.default_rng(start).integers(0, 500))]  # and an older row goes
        blocks = blocks.without(gone).plus(np.concatenate([again, new]))
        index = index.changed(gone, np.concatenate([again, new]))
        window = list(range(len(blocks) - len(again) - len(new), len(blocks)))
        found = index.above(blocks, window, tau)
        asked += len(window)
        assert _same(found, exact_above(blocks.dense(), window, tau))
        assert _same(found, FactNeighbours.build(blocks, directions=8).above(blocks, window, tau))
    assert sum(len(r) for r, _ in found) > 0
    fresh_builds = len(range(600, 1200, 30))  # each check above builds an index and passes over every query
    assert sum(passes) - fresh_builds * len(window) < asked / 2  # most queries came from the memo


def test_an_index_an_older_one_was_changed_into_does_not_share_its_memo() -> None:
    vectors = _clustered(700, seed=5)
    base = Blocks.of(vectors[:500])
    index = FactNeighbours.build(base, directions=8)
    rows = list(range(480, 500))
    index.above(base, rows, 0.85)  # remembered by the base index
    one = base.without(rows).plus(vectors[500:600])
    first = index.changed(rows, vectors[500:600])  # takes the memo
    assert _same(first.above(one, range(400, 580, 7), 0.85), exact_above(one.dense(), range(400, 580, 7), 0.85))
    # the base index answers for its own rows again, and a second index made from it starts afresh
    assert _same(index.above(base, rows, 0.85), exact_above(base.dense(), rows, 0.85))
    two = base.without([499]).plus(vectors[600:700])
    second = index.changed([499], vectors[600:700])
    ask = [*range(470, 499), *range(550, 599, 5)]
    assert _same(second.above(two, ask, 0.85), exact_above(two.dense(), ask, 0.85))


def test_a_serial_is_never_given_twice() -> None:
    """Rows removed from the end and others added: a remembered row's serial must not name a new row."""
    vectors = _clustered(300, seed=6)
    blocks = Blocks.of(vectors[:200])
    index = FactNeighbours.build(blocks, directions=8)
    index.above(blocks, [10, 150], 0.5)
    blocks, index = blocks.without(range(190, 200)), index.changed(list(range(190, 200)), vectors[:0])
    blocks, index = blocks.plus(vectors[200:300]), index.changed([], vectors[200:300])
    assert _same(index.above(blocks, [10, 150], 0.5), exact_above(blocks.dense(), [10, 150], 0.5))


# -- through Memory: the index is built for the test's small memory ------------------------------------------------


def _settings(location: str) -> Settings:
    return Settings.load(env={}, store=location, embed__backend="hash")


TEXTS = (
    "I adopted a grey cat called Pepper from the shelter",
    "Pepper the grey cat sleeps on my desk all afternoon",
    "My grey cat Pepper knocked the plant off the desk",
    "I bought a new bike and ride it to work along the canal",
    "The bike ride along the canal takes twenty minutes",
    "We cooked a mushroom risotto with lots of parmesan",
)


def _messages(start: int, session: str, n: int) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"{TEXTS[(start + i) % len(TEXTS)]}, day {start + i}", "session": session}
        for i in range(n)
    ]


def _events(mem: Memory) -> set[tuple[str, tuple[str, ...]]]:
    return {(e.id, e.fact_ids) for e in mem.store.events(Scope("ana"))}


@pytest.fixture
def indexed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(snapshot_module, "MIN_ROWS", 0)
    yield


@pytest.mark.parametrize("location", ["sqlite"], indirect=True)
def test_adds_through_the_index_build_the_events_of_a_pass_over_all_facts(
    location: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def grow(store: str, min_rows: int) -> set[tuple[str, tuple[str, ...]]]:
        monkeypatch.setattr(snapshot_module, "MIN_ROWS", min_rows)
        with Memory(_settings(store), embedder=HashEmbedder()) as mem:
            mem.add(_messages(0, "s1", 8), user_id="ana")
            mem.search("cat", user_id="ana")
            for i in range(6):  # one message at a time, the last window re-cut each time
                mem.add(_messages(10 + i, "s1" if i % 2 else "s2", 1), user_id="ana")
                if min_rows == 0:
                    snap = mem._snapshots.get(Scope("ana"))
                    assert snap.fact_neighbours is not None and len(snap.fact_neighbours) == len(snap.facts)
            return _events(mem)

    with_index = grow(location, 0)
    without = grow(str(tmp_path / "plain.db"), 10**9)
    assert with_index and with_index == without


@pytest.mark.parametrize("location", ["sqlite"], indirect=True)
def test_an_add_after_a_delete_never_finds_the_forgotten_facts(location: str, indexed: None) -> None:
    with Memory(_settings(location), embedder=HashEmbedder()) as mem:
        mem.add(_messages(0, "a", 3), user_id="ana")
        mem.add(_messages(3, "b", 3), user_id="ana")
        scope = Scope("ana")
        mem.add(_messages(0, "b", 1), user_id="ana")  # a grown snapshot with its index
        before = mem._snapshots.get(scope)
        assert before.__dict__.get("fact_neighbours") is not None
        forgotten = {
            f.id
            for f in mem.store.facts(scope)
            if f.context_id in {c.id for c in mem.store.contexts(scope, session="a")}
        }
        assert forgotten
        mem.delete(session="a", user_id="ana")
        mem.add(_messages(0, "b", 2), user_id="ana")  # the same words again: the old facts must not be found
        snap = mem._snapshots.get(scope)
        assert snap is not before and snap.fact_neighbours is not before.fact_neighbours
        assert len(snap.fact_neighbours or ()) == len(snap.facts)
        assert not forgotten & {f.id for f in snap.facts}
        assert all(not forgotten & set(fids) for _, fids in _events(mem))
