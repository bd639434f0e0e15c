"""A read-only list held as a few immutable parts, so a snapshot grown by a few records (an agent's add) makes a
new list without copying the old one: the records of :class:`~anchormem.index.rows.Blocks`' vectors.

Copying a list of 179,000 facts touches every fact (reference counts), and the garbage collector then walks
the new list on its next young collections: both cost the memory's size on every add. A
:class:`SharedList` is a tuple of parts, each a view ``(items, start, stop)`` of an immutable tuple;
appending adds a part and merges parts as a binary counter does (as ``Blocks`` does), removing items keeps
the items before the first removed one as a view and copies only those after it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar, overload

T = TypeVar("T")
_Part = tuple[tuple[T, ...], int, int]  # items[start:stop]


class SharedList(Sequence[T], Generic[T]):
    """An immutable sequence made of shared parts (see the module docstring). Indexing, slicing (a list),
    iterating and ``len`` as a list; :meth:`without` and :meth:`plus` give new lists."""

    __slots__ = ("_parts", "_starts")

    def __init__(self, items: Iterable[T] = ()) -> None:
        whole = tuple(items)
        self._parts: tuple[_Part[T], ...] = ((whole, 0, len(whole)),) if whole else ()
        self._starts = self._starts_of(self._parts)

    @staticmethod
    def _starts_of(parts: Sequence[_Part[T]]) -> list[int]:
        return list(itertools.accumulate((stop - start for _, start, stop in parts), initial=0))

    @classmethod
    def of(cls, items: Iterable[T]) -> SharedList[T]:
        """``items`` as a shared list (a shared list is returned as it is)."""
        return items if isinstance(items, SharedList) else cls(items)

    @classmethod
    def _of(cls, parts: Sequence[_Part[T]]) -> SharedList[T]:
        out: SharedList[T] = cls.__new__(cls)
        out._parts = tuple(p for p in parts if p[2] > p[1])
        out._starts = cls._starts_of(out._parts)
        return out

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                return [self[j] for j in range(start, stop, step)]
            return list(itertools.islice(self._from(start), max(0, stop - start)))
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("SharedList index out of range")
        p = bisect.bisect_right(self._starts, i) - 1
        items, start, _ = self._parts[p]
        return items[start + i - self._starts[p]]

    def __iter__(self) -> Iterator[T]:
        return self._from(0)

    def _from(self, i: int) -> Iterator[T]:
        """The items from the ``i``-th on."""
        p = max(0, bisect.bisect_right(self._starts, i) - 1)
        for k in range(p, len(self._parts)):
            items, start, stop = self._parts[k]
            skip = max(0, i - self._starts[k])
            yield from itertools.islice(items, start + skip, stop)

    def __repr__(self) -> str:
        return f"SharedList({list(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SharedList | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @property
    def parts(self) -> int:
        return len(self._parts)

    def without(self, rows: Sequence[int]) -> SharedList[T]:
        """These items removed (``rows`` sorted, distinct); the others keep their order."""
        if not len(rows):
            return self
        parts: list[_Part[T]] = []
        r = 0
        for (items, start, stop), first in zip(self._parts, self._starts, strict=False):
            last = first + stop - start
            local: list[int] = []
            while r < len(rows) and rows[r] < last:
                local.append(rows[r] - first + start)
                r += 1
            if not local:
                parts.append((items, start, stop))
                continue
            parts.append((items, start, local[0]))
            dropped = set(local)
            kept = tuple(items[j] for j in range(local[0], stop) if j not in dropped)
            parts.append((kept, 0, len(kept)))
        return SharedList._of(parts)

    def plus(self, items: Iterable[T]) -> SharedList[T]:
        """These items appended, merging parts as a binary counter does."""
        added = tuple(items)
        if not added:
            return self
        parts = [*self._parts, (added, 0, len(added))]
        while len(parts) > 1 and 2 * (parts[-1][2] - parts[-1][1]) >= parts[-2][2] - parts[-2][1]:
            (a, a0, a1), (b, b0, b1) = parts[-2], parts[-1]
            merged = (*itertools.islice(a, a0, a1), *itertools.islice(b, b0, b1))
            parts[-2:] = [(merged, 0, len(merged))]
        return SharedList._of(parts)
