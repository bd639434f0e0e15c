"""An import whose write fails part-way leaves nothing (one transaction per scope), on both stores, so
the same file, once mended, imports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import StoreFullError
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import Scope
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages


def _export(tmp_path: Path) -> list[dict[str, Any]]:
    cfg = Settings.load(env={}, store=str(tmp_path / "source.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder(), llm=FakeLLM(llm_responder)) as mem:
        mem.add(messages(SESSION_1, "1") + messages(SESSION_2, "2"), user_id="ana")
        return list(mem.export(user_id="ana"))


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_an_import_that_fails_at_write_time_leaves_nothing(
    location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _export(tmp_path)
    assert {"turn", "context", "fact", "event", "usage", "history"} <= {r["type"] for r in records}
    cfg = Settings.load(env={}, store=location, cache=str(tmp_path / "cache.db"), embed__backend="hash")
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        store = mem.store
        write_history = store.append_history

        def full_at_the_end(scope: Scope, op: str, detail: Any, timestamp: float | None = None) -> Any:
            if op == "import":  # the scope's last write: everything else of it is written by now
                raise StoreFullError("the disk is full")
            return write_history(scope, op, detail, timestamp)

        monkeypatch.setattr(store, "append_history", full_at_the_end)
        with pytest.raises(StoreFullError):
            mem.import_records(records)
        monkeypatch.undo()
        assert mem.users() == [] and store.version(Scope("ana")) == 0
        assert store.turns(Scope("ana")) == [] and store.history(Scope("ana")) == []
        report = mem.import_records(records)  # not "the store already holds a memory"
        assert report.turns == len(SESSION_1) + len(SESSION_2) and report.facts > 0 and report.events > 0
        assert len(mem.turns(user_id="ana")) == report.turns
