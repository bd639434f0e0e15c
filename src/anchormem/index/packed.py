"""Big string-keyed maps and string lists read from a snapshot file (:mod:`anchormem.index.snapshot_file`)
without making a Python object per entry.

A snapshot of 50,000 turns holds about a million ids in its indexes (id -> row numbers, fact id -> event ids,
the rows' ids). Read back one object at a time they cost most of a second, though a search looks up a few
hundred. :class:`PackedMap` keeps the keys as one sorted array of UTF-8 bytes and finds a key by binary search;
:class:`PackedStrs` slices a string out of one joined text when asked; :class:`PackedRecords` decodes the file's
facts and events a chunk at a time when a search touches them. A map becomes a plain ``dict`` on its first
write (a grown snapshot adds its new ids to the maps it shares with the old one).
"""

from __future__ import annotations

import io
import pickle
import threading
from abc import abstractmethod
from collections.abc import Iterator, MutableMapping, Sequence
from typing import Any, Generic, TypeVar, overload

import numpy as np
import numpy.typing as npt

from anchormem.model import Event, Fact

IntArray = npt.NDArray[np.int64]
T = TypeVar("T")


def packable_keys(keys: Sequence[str]) -> bool:
    """Whether ``keys`` can be packed (a NUL would be lost at the end of a fixed-width byte string)."""
    return all("\0" not in k for k in keys)


def pack_keys(keys: Sequence[str]) -> tuple[npt.NDArray[np.bytes_], IntArray]:
    """The keys as a sorted byte array, and the position of each sorted key in ``keys``."""
    raw = np.array([k.encode("utf-8") for k in keys], dtype=np.bytes_) if keys else np.zeros(0, "S1")
    order = np.argsort(raw, kind="stable").astype(np.int64)
    return raw[order], order


class PackedMap(MutableMapping[str, Any]):
    """A ``dict[str, int]`` (``values``) or ``dict[str, tuple[str, ...]]`` (``counts`` and ``items``, the
    tuples' strings in key order) looked up in sorted keys until its first write."""

    def __init__(
        self,
        keys: npt.NDArray[np.bytes_],
        order: IntArray,
        values: IntArray | None = None,
        counts: IntArray | None = None,
        items: PackedStrs | None = None,
    ) -> None:
        self._keys, self._order = keys, order
        self._values = values
        self._items = items
        self._ends = np.cumsum(counts) if counts is not None else None
        self._dict: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def _at(self, key: str) -> int:
        """The position in insertion order of ``key``, or -1."""
        raw = key.encode("utf-8")
        if not self._keys.size or b"\0" in raw or len(raw) > self._keys.dtype.itemsize:
            return -1
        i = int(np.searchsorted(self._keys, np.bytes_(raw)))
        if i < len(self._keys) and self._keys[i] == raw:
            return int(self._order[i])
        return -1

    def _value(self, at: int) -> Any:
        if self._values is not None:
            return int(self._values[at])
        assert self._ends is not None and self._items is not None
        start = int(self._ends[at - 1]) if at else 0
        return tuple(self._items[start : int(self._ends[at])])

    def __getitem__(self, key: str) -> Any:
        held = self._dict
        if held is not None:
            return held[key]
        at = self._at(key) if isinstance(key, str) else -1
        if at < 0:
            raise KeyError(key)
        return self._value(at)

    def __contains__(self, key: object) -> bool:
        held = self._dict
        if held is not None:
            return key in held
        return isinstance(key, str) and self._at(key) >= 0

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __len__(self) -> int:
        held = self._dict
        return len(held) if held is not None else len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        """The map as a plain dict (made once; later reads and writes use it)."""
        held = self._dict
        if held is None:
            with self._lock:
                if self._dict is None:
                    keys = [b.decode("utf-8") for b in self._keys.tolist()]
                    by_insertion = sorted(zip(self._order.tolist(), keys, strict=True))
                    self._dict = {k: self._value(at) for at, k in by_insertion}
                held = self._dict
        return held

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (self.as_dict(),))

    def __setitem__(self, key: str, value: Any) -> None:
        self.as_dict()[key] = value

    def __delitem__(self, key: str) -> None:
        del self.as_dict()[key]


class _Indexed(Sequence[T]):
    """A sequence that makes its items when asked: ``_item`` gets an index within range."""

    @abstractmethod
    def _item(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._item(j) for j in range(len(self))[i]]
        return self._item(range(len(self))[i])  # a negative index counted from the end; IndexError out of range


class PackedStrs(_Indexed[str]):
    """A list of strings kept as one joined text and their lengths."""

    def __init__(self, text: str, lengths: IntArray) -> None:
        self._text = text
        self._ends = np.cumsum(lengths).astype(np.int64)

    def __len__(self) -> int:
        return len(self._ends)

    def _item(self, i: int) -> str:
        return self._text[int(self._ends[i - 1]) if i else 0 : int(self._ends[i])]

    def __iter__(self) -> Iterator[str]:
        ends = self._ends.tolist()
        return (self._text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True))


class PackedRecords(_Indexed[T], Generic[T]):
    """Facts or events read from a snapshot file, kept as the file's chunks of ``size`` records
    (:func:`pack_records`) and decoded a chunk at a time on first use."""

    def __init__(self, kind: str, chunks: Sequence[bytes | memoryview], length: int, size: int) -> None:
        self._make: Any = Fact if kind == "facts" else Event
        self._chunks = chunks
        self._decoded: list[list[T] | None] = [None] * len(chunks)
        self._len = length
        self._size = max(1, size)

    def __len__(self) -> int:
        return self._len

    def _chunk(self, c: int) -> list[T]:
        got = self._decoded[c]
        if got is None:
            got = [self._make(*fields) for fields in _Strict(io.BytesIO(self._chunks[c])).load()]
            self._decoded[c] = got  # two threads may decode one chunk: both get equal records
        return got

    def _item(self, i: int) -> T:
        return self._chunk(i // self._size)[i % self._size]

    def __iter__(self) -> Iterator[T]:
        for c in range(len(self._chunks)):
            yield from self._chunk(c)

    def __reduce__(self) -> tuple[Any, ...]:  # held by a snapshot grown from this one: saved as a list
        return (list, (list(self),))


def pack_records(records: Sequence[Fact | Event]) -> bytes:
    """A chunk of :class:`PackedRecords`: the records' fields as tuples of strings."""
    return pickle.dumps([_fields(r) for r in records], protocol=5)


def _fields(record: Fact | Event) -> tuple[Any, ...]:
    if isinstance(record, Fact):
        return (record.id, record.context_id, record.text, record.source)
    if record.supersedes:  # a sixth field only where there are links: older files decode as they are
        return (record.id, record.text, tuple(record.fact_ids), record.source, tuple(record.supersedes))
    return (record.id, record.text, tuple(record.fact_ids), record.source)


class _Strict(pickle.Unpickler):
    """Admits no class at all: the records' chunks are tuples of strings."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a snapshot chunk names {module}.{name}")


# -- in a snapshot file -------------------------------------------------------------------------------------

PACK_FROM = 1000  # entries: smaller containers pickle as they are


def pack(obj: Any) -> tuple[Any, ...] | None:
    """A big ``dict[str, int]``, ``dict[str, tuple[str, ...]]`` or ``list[str]`` as strings and arrays."""
    if isinstance(obj, PackedMap):  # read from a file, now in a grown snapshot
        obj = obj.as_dict()
    if type(obj) is list and len(obj) >= PACK_FROM and all(type(x) is str for x in obj):
        return ("strs", *_join(obj))
    if type(obj) is not dict or len(obj) < PACK_FROM or not all(type(k) is str for k in obj):
        return None
    keys = list(obj)
    if not packable_keys(keys):
        return None
    values = list(obj.values())
    if all(type(v) is int for v in values):
        return ("str->int", *pack_keys(keys), np.asarray(values, dtype=np.int64))
    if all(type(v) is tuple and all(type(x) is str for x in v) for v in values):
        flat = [x for v in values for x in v]
        counts = np.asarray([len(v) for v in values], dtype=np.int64)
        return ("str->strs", *pack_keys(keys), counts, *_join(flat))
    return None


def _join(items: list[str]) -> tuple[str, Any]:
    return "".join(items), np.asarray([len(x) for x in items], dtype=np.int64)


def unpack(found: tuple[Any, ...]) -> Any:
    kind = found[0]
    if kind == "strs":
        return PackedStrs(found[1], found[2])
    if kind == "str->int":
        return PackedMap(found[1], found[2], values=found[3])
    if kind == "str->strs":
        return PackedMap(found[1], found[2], counts=found[3], items=PackedStrs(found[4], found[5]))
    raise ValueError(f"unknown packing {kind!r}")
