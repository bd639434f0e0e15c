"""Gold evidence cleaning and evidence recall."""

from __future__ import annotations

import pytest

from anchormem.eval.evidence import clean_evidence, evidence_recall, normalize_dia_id, summarize_recall

TURNS = frozenset({"D1:1", "D1:2", "D4:4", "D4:6", "D8:6", "D9:1", "D9:17", "D11:26", "D30:5"})


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        (["D1:1", "D1:2"], ("D1:1", "D1:2")),
        (["D8:6; D9:17"], ("D8:6", "D9:17")),
        (["D9:1 D4:4 D4:6"], ("D9:1", "D4:4", "D4:6")),
        (["D:11:26"], ("D11:26",)),
        (["D30:05"], ("D30:5",)),
        (["D1:1", "D", "D1:2"], ("D1:1", "D1:2")),
        (["D1:1", "D99:1", "D1:2"], ("D1:1", "D1:2")),  # no such turn
        (["D1:2", "D1:1", "D1:2"], ("D1:2", "D1:1")),  # order kept, duplicates dropped
        ([], ()),
    ],
)
def test_clean_evidence(raw: list[str], cleaned: tuple[str, ...]) -> None:
    assert clean_evidence(raw, TURNS) == cleaned


def test_normalize_dia_id_rejects_non_ids() -> None:
    assert normalize_dia_id("D") is None
    assert normalize_dia_id("session 1") is None
    assert normalize_dia_id("D02:010") == "D2:10"


def test_evidence_recall() -> None:
    assert evidence_recall(["D1:1", "D1:2"], {"D1:2", "D5:5"}) == 0.5
    assert evidence_recall(["D1:1"], []) == 0.0
    assert evidence_recall([], ["D1:1"]) is None


def test_summarize_recall_leaves_out_and_counts_questions_without_evidence() -> None:
    summary = summarize_recall([(["D1:1"], ["D1:1"]), (["D1:1", "D1:2"], ["D1:1"]), ([], ["D1:1"])])
    assert summary.recall == pytest.approx(0.75)
    assert (summary.scored, summary.no_evidence) == (2, 1)
    assert summarize_recall([([], [])]).recall is None
