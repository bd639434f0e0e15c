"""The one way a resource of this library is used in a ``with`` block: leaving it calls ``close``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self


class Closeable(ABC):
    """A resource that holds something open (a connection, a file) until :meth:`close`;
    ``with resource:`` closes it when the block ends, however it ends."""

    @abstractmethod
    def close(self) -> None:
        """Release what the resource holds; calling it again does no harm."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
