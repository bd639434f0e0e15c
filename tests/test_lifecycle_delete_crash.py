"""A delete interrupted after its store transaction must already have forgotten the LLM cache and scrubbed
the store file: the target is gone then, so re-running the delete cannot do it later."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import NotFoundError, StoreError
from anchormem.llm.cache import CachedLLM
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages


class Crash(BaseException):
    """The process dies here (nothing after this line runs)."""


def _bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_a_crash_right_after_the_cascade_leaves_no_cached_copy(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_path = tmp_path / "cache.db"
    llm = CachedLLM(FakeLLM(llm_responder), cache_path)
    with Memory(settings, embedder=HashEmbedder(), llm=llm) as mem:
        mem.add(messages(SESSION_1, "1"), user_id="ana")
        mem.add(messages(SESSION_2, "2"), user_id="ana")
        real = mem.store.delete_records

        def crash_after_commit(*args: Any, **kwargs: Any) -> dict[str, int]:
            real(*args, **kwargs)
            raise Crash

        monkeypatch.setattr(mem.store, "delete_records", crash_after_commit)
        with pytest.raises(Crash):
            mem.delete(user_id="ana", session="1")
        monkeypatch.undo()
        with pytest.raises(NotFoundError):  # the words are gone from the store: a re-run has nothing to do
            mem.delete(user_id="ana", session="1")
        assert b"Pico loves the beach" not in _bytes(cache_path)
    llm.close()


def test_a_failing_rebuild_still_scrubs_the_store_file(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(settings, embedder=HashEmbedder()) as mem:
        mem.add(messages(SESSION_1, "1"), user_id="ana")

        def broken(*args: Any, **kwargs: Any) -> Any:
            raise StoreError("disk full")

        monkeypatch.setattr("anchormem.ingest.pipeline.IngestPipeline.rebuild", broken)
        victim = mem.turns(user_id="ana")[2]
        with pytest.raises(StoreError):
            mem.delete(user_id="ana", turn=victim.id)
        assert victim.id not in {t.id for t in mem.turns(user_id="ana")}
        assert b"Pico loves the beach" not in _bytes(settings.store_path)
