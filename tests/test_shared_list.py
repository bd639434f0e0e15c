"""A SharedList reads as the list it stands for after any removals and appends, and shares the old parts."""

from __future__ import annotations

import random

import pytest

from anchormem.index.shared_list import SharedList


def test_a_shared_list_reads_as_the_list_after_removals_and_appends() -> None:
    rng = random.Random(0)
    ref = list(range(100))
    shared: SharedList[int] = SharedList(ref)
    for step in range(300):
        if rng.random() < 0.5:  # the latest items (a re-cut window) and now and then an old one
            picked = {len(ref) - 1 - rng.randint(0, 5), rng.randrange(len(ref))}
            rows = sorted(r for r in picked if 0 <= r < len(ref))
            before = list(shared)
            shared = shared.without(rows)
            ref = [x for j, x in enumerate(ref) if j not in set(rows)]
        else:
            added = [1000 + 10 * step + j for j in range(rng.randint(1, 12))]
            before = list(shared)
            grown = shared.plus(added)
            assert list(shared) == before  # the old list is not changed
            shared, ref = grown, ref + added
        assert len(shared) == len(ref) and list(shared) == ref and shared == ref
        i = rng.randrange(len(ref))
        assert shared[i] == ref[i] and shared[-1] == ref[-1] and shared[-len(ref)] == ref[0]
        a, b = sorted(rng.randrange(len(ref) + 1) for _ in range(2))
        assert shared[a:b] == ref[a:b] and shared[a:] == ref[a:] and shared[::7] == ref[::7]
    assert shared.parts < 20  # merged as a binary counter


def test_a_shared_list_refuses_rows_out_of_range() -> None:
    shared = SharedList("abc")
    with pytest.raises(IndexError):
        shared[3]
    with pytest.raises(IndexError):
        shared[-4]
    assert not SharedList([]) and SharedList.of(shared) is shared
