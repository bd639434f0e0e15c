"""The one order of a change that forgets words (delete, update): the cache first, then the store, then
re-deriving, and a scrub of the store file whatever failed after the forgetting."""

from __future__ import annotations

from typing import Any

import pytest

from anchormem.errors import LLMError, StoreError
from anchormem.lifecycle.delete import rewrite
from anchormem.model import IngestReport


class Recorder:
    """Stands in for the store (``scrub``) and the LLM response cache (``forget_containing``)."""

    def __init__(self) -> None:
        self.steps: list[str] = []

    def scrub(self) -> None:
        self.steps.append("scrub")

    def forget_containing(self, text: str) -> int:
        self.steps.append(f"forget {text}")
        return 1


def test_the_cache_is_forgotten_before_the_change_and_the_store_scrubbed_after() -> None:
    log: Any = Recorder()

    def change() -> dict[str, int]:
        log.steps.append("change")
        return {"turns": 1}

    def rederive() -> IngestReport:
        log.steps.append("rederive")
        return IngestReport(contexts_added=2, notes=["fine"])

    done = rewrite(log, log, ["old words", "old words", " "], change, rederive, "rebuilding stopped")
    assert log.steps == ["forget old words", "change", "rederive", "scrub"]
    assert (done.forgotten, done.counts, done.rebuilt.contexts_added, done.rebuilt.notes) == (
        1,
        {"turns": 1},
        2,
        ["fine"],
    )


def test_an_llm_failure_while_rederiving_leaves_the_change_standing_with_a_note() -> None:
    log: Any = Recorder()

    def rederive() -> IngestReport:
        raise LLMError("endpoint down")

    done = rewrite(log, None, [], lambda: {"turns": 3}, rederive, "deriving from the new text stopped")
    assert done.counts == {"turns": 3} and done.rebuilt.contexts_added == 0
    assert done.rebuilt.notes == ["deriving from the new text stopped: endpoint down"]
    assert log.steps == ["scrub"]


def test_a_failing_change_still_scrubs_and_nothing_is_rederived() -> None:
    log: Any = Recorder()

    def change() -> dict[str, int]:
        raise StoreError("disk full")

    def rederive() -> IngestReport:
        log.steps.append("rederive")
        return IngestReport()

    with pytest.raises(StoreError, match="disk full"):
        rewrite(log, None, [], change, rederive)
    assert log.steps == ["scrub"]


def test_without_rederive_nothing_is_derived_again() -> None:
    store: Any = Recorder()
    done = rewrite(store, None, [], lambda: {"turns": 0})
    assert done.rebuilt == IngestReport()
