"""Packed maps and string lists (``query.packed``) read like the dicts and lists they were made from."""

from __future__ import annotations

import pytest

from anchormem.index.packed import PackedMap, PackedStrs, pack_keys, packable_keys

IDS = ["f-10", "f-2", "ü-naïve", "", "f-1", "a longer id than the others"]


def _ints() -> PackedMap:
    keys, order = pack_keys(IDS)
    import numpy as np

    return PackedMap(keys, order, values=np.arange(len(IDS), dtype=np.int64) * 10)


def test_a_packed_map_finds_every_key_and_no_other() -> None:
    m = _ints()
    assert len(m) == len(IDS)
    for i, k in enumerate(IDS):
        assert m[k] == i * 10 and k in m and m.get(k) == i * 10
    for missing in ("f-3", "f-1 ", "f", "a longer id than the others, longer still", "ü"):
        assert missing not in m and m.get(missing, -1) == -1
        with pytest.raises(KeyError):
            m[missing]
    assert list(m) == IDS  # insertion order, as the dict it was made from


def test_a_write_turns_it_into_a_dict_that_keeps_everything() -> None:
    m = _ints()
    m["new"] = 99
    assert m["new"] == 99 and m["f-2"] == 10 and len(m) == len(IDS) + 1
    del m["f-2"]
    assert "f-2" not in m and m.as_dict() == {**{k: i * 10 for i, k in enumerate(IDS) if k != "f-2"}, "new": 99}


def test_tuples_of_strings() -> None:
    import numpy as np

    values = [("e1",), (), ("e2", "e3"), ("é",), ("e1", "e4"), ("x",)]
    keys, order = pack_keys(IDS)
    flat = [x for v in values for x in v]
    items = PackedStrs("".join(flat), np.asarray([len(x) for x in flat], dtype=np.int64))
    m = PackedMap(keys, order, counts=np.asarray([len(v) for v in values], dtype=np.int64), items=items)
    assert {k: m[k] for k in IDS} == dict(zip(IDS, values, strict=True))
    assert list(items) == flat and items[-1] == "x" and items[1:3] == flat[1:3]


def test_keys_with_a_nul_are_not_packed() -> None:
    assert packable_keys(["a", "b"]) and not packable_keys(["a\0"])
