"""The parts one memory runs on: its store, embedder and LLM, each opened on first use.

Pass ready-made parts (e.g. fakes in tests) and they are used as given; otherwise the
settings say what to open. Nothing is opened before it is needed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from anchormem.config import Settings
from anchormem.embed.factory import open_embedder
from anchormem.embed.protocol import Embedder
from anchormem.errors import ConfigError, LLMNotConfiguredError
from anchormem.llm.batch import BatchLLM
from anchormem.llm.cache import CachedLLM
from anchormem.llm.factory import open_llm
from anchormem.llm.protocol import LLM
from anchormem.store.capabilities import Located, ServedAt
from anchormem.store.factory import open_store
from anchormem.store.protocol import Store


@dataclass(frozen=True)
class BatchStoreFile:
    """A batch store file this process has not opened: opened only to forget deleted words from it
    (:func:`anchormem.lifecycle.delete.forget_cached`)."""

    path: Path


class GivenParts(TypedDict, total=False):
    """Ready-made parts a memory is built with (``Memory(settings, store=..., embedder=..., llm=...)``);
    each left out (or ``None``) is opened from the settings on first use."""

    store: Store | None
    embedder: Embedder | None
    llm: LLM | None


class Parts:
    """Store, embedder and LLM of one memory, opened lazily from ``settings``, once: threads that ask for a
    part at the same time wait for the one that opens it (two connections opening a fresh SQLite file at once
    could find it locked while the other set it up)."""

    def __init__(self, settings: Settings, **given: Unpack[GivenParts]) -> None:
        unknown = sorted(set(given) - GivenParts.__optional_keys__)
        if unknown:
            raise TypeError(f"unexpected keyword argument {unknown[0]!r}; the parts are store, embedder and llm")
        self.settings = settings
        self._store = given.get("store")
        self._embedder = given.get("embedder")
        self._llm = given.get("llm")
        self._batch: BatchLLM | None = None
        self._batched: LLM | None = None
        self._opening = threading.RLock()

    @property
    def store(self) -> Store:
        store = self._store
        return store if store is not None else self._open_once("_store", self.settings.store_location, open_store)

    @property
    def embedder(self) -> Embedder:
        embedder = self._embedder
        return embedder if embedder is not None else self._open_once("_embedder", self.settings.embed, open_embedder)

    def _open_once(self, attribute: str, what: Any, opener: Callable[[Any], Any]) -> Any:
        """``opener(what)`` kept in ``attribute``, opened by one thread only (the others wait for it)."""
        with self._opening:
            if getattr(self, attribute) is None:
                setattr(self, attribute, opener(what))
            return getattr(self, attribute)

    def _location(self, given: Callable[[Store], object]) -> object:
        """Where the store is: what ``given`` reads of the given store, else the settings' location."""
        return given(self._store) if self._store is not None else self.settings.store_location

    @property
    def store_file(self) -> Path | None:
        """The SQLite file of the store (the one given, else the settings'), or None for a server store."""
        where = self._location(lambda store: store.path if isinstance(store, Located) else None)
        if not isinstance(where, str) or "://" in where or where == ":memory:":
            return None
        return Path(where)

    @property
    def store_url(self) -> str | None:
        """The URL of a server store (the one given, else the settings'), or None for a SQLite store."""
        where = self._location(lambda store: store.url if isinstance(store, ServedAt) else None)
        return where if isinstance(where, str) and "://" in where and not where.startswith("sqlite:") else None

    @property
    def loaded_embedder(self) -> Embedder | None:
        """The embedder if it is open already (never opens it)."""
        return self._embedder

    @property
    def llm(self) -> LLM | None:
        """The configured LLM, or ``None`` when none is configured."""
        if self._llm is None and self.settings.llm is not None:
            self._llm = open_llm(self.settings.llm, self.settings.cache_path)
        return self._llm

    @property
    def llm_model(self) -> str | None:
        llm = self.llm
        return llm.model if llm is not None else None

    def batch_llm(self) -> LLM:
        """The LLM of batch ingest: the configured model's requests and answers kept in the batch store
        (``settings.batch_path``), behind the response cache as the live LLM is (opened on first use)."""
        if self._batched is None:
            model = self.require_llm("batch ingest").model
            with self._opening:
                if self._batched is None:
                    self._batch = BatchLLM(model, self.settings.batch_path)
                    cached = self.settings.llm is not None
                    self._batched = CachedLLM(self._batch, self.settings.cache_path) if cached else self._batch
        return self._batched

    def batch_store(self) -> BatchLLM:
        """The batch store of :meth:`batch_llm` (opened with it)."""
        self.batch_llm()
        assert self._batch is not None
        return self._batch

    def require_llm(self, what: str) -> LLM:
        llm = self.llm
        if llm is None:
            raise LLMNotConfiguredError(
                f"{what} needs an LLM: set ANCHORMEM_LLM_BASE_URL and ANCHORMEM_LLM_MODEL "
                "(or --llm-url/--llm-model, or [llm] in the config file)"
            )
        return llm

    def stored_embedder(self) -> tuple[str | None, int]:
        """The name and dimension of the embedder the store's vectors came from (``None``, 0: not yet known)."""
        dim = self.store.get_meta("embedder_dim")
        return self.store.get_meta("embedder"), int(dim) if dim else 0

    def check_embedder(self) -> None:
        """A store's vectors come from one embedder; refuse to mix them (the first use records it)."""
        name = self.store.get_meta("embedder")
        if name is None:
            self.store.set_meta("embedder", self.embedder.name)
            self.store.set_meta("embedder_dim", str(self.embedder.dim))
        elif name != self.embedder.name:
            raise ConfigError(
                f"this store was built with embedder {name!r}, not {self.embedder.name!r}; "
                "use the same embedding backend or a new store"
            )

    def response_cache(self) -> object | None:
        """The LLM response cache to forget deleted text from: the configured one, else the file an
        earlier configuration left next to the store."""
        llm = self.llm
        if llm is not None and hasattr(llm, "forget_containing"):
            return llm
        return self.settings.cache_path

    def forgetting(self) -> list[object]:
        """Where LLM exchanges that may hold deleted words are kept: the response cache (as
        :meth:`response_cache`) and the batch store, when this memory has one (open, or a file)."""
        out: list[object] = [self.response_cache()]
        if self._batch is not None:
            out.append(self._batch)
        elif self.settings.batch_path.exists():
            out.append(BatchStoreFile(self.settings.batch_path))
        return out

    def close(self) -> None:
        if self._batched is not None and self._batched is not self._batch:
            close = getattr(self._batched, "close", None)
            if close is not None:
                close()
        if self._batch is not None:
            self._batch.close()
        if self._store is not None:
            self._store.close()
