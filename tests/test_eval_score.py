"""The answers scorer on a tiny LoCoMo-shaped fixture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchormem.errors import InputError, NotFoundError
from anchormem.eval.qa import load_questions, load_turn_ids
from anchormem.eval.score import format_markdown, score_answers


def _turn(dia_id: str, text: str) -> dict[str, str]:
    return {"speaker": "Ann", "dia_id": dia_id, "text": text}


def _samples() -> list[dict[str, Any]]:
    conversation = {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [_turn("D1:1", "hi"), _turn("D1:2", "I moved in 2022"), _turn("D1:3", "nice")],
    }
    return [
        {
            "sample_id": "s1",
            "conversation": conversation,
            "qa": [
                {"question": "When?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
                {"question": "Which year?", "answer": 2022, "evidence": ["D1:2; D1:3"], "category": 4},
                {"question": "Trick?", "adversarial_answer": "x", "evidence": [], "category": 5},
                {"question": "Car?", "answer": "a red car", "evidence": ["D", "D1:9"], "category": 1},
            ],
        },
        {
            "sample_id": "s2",
            "conversation": {"session_1": [_turn("D1:1", "Paris is lovely")]},
            "qa": [{"question": "Where?", "answer": "Paris", "evidence": ["D1:01"], "category": 3}],
        },
    ]


def _write(tmp_path: Path, samples: Any, answers: list[dict[str, Any]]) -> tuple[Path, Path]:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps(samples), encoding="utf-8")
    answers_path = tmp_path / "answers.jsonl"
    answers_path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    return data, answers_path


ANSWERS = [
    {"sample_id": "s1", "qa_index": 0, "answer": "7 May 2023", "judge": True},
    {"sample_id": "s1", "qa_index": 1, "answer": "In 2022", "judge": False},
    {"sample_id": "s1", "qa_index": 2, "answer": "no idea"},  # category 5: ignored
    {"sample_id": "s2", "qa_index": 0, "answer": "Paris."},
]


def test_load_questions_skips_category_5_and_cleans(tmp_path: Path) -> None:
    data, _ = _write(tmp_path, _samples(), [])
    questions = load_questions(data, None)
    assert [(q.sample_id, q.qa_index, q.category) for q in questions] == [
        ("s1", 0, 2),
        ("s1", 1, 4),
        ("s1", 3, 1),
        ("s2", 0, 3),
    ]
    assert questions[1].answer == "2022"
    assert questions[1].evidence == ("D1:2", "D1:3")
    assert questions[2].evidence == () and questions[2].raw_evidence == ("D", "D1:9")
    assert questions[3].evidence == ("D1:1",)
    assert [q.qa_index for q in load_questions(data, ["s1"], categories=(5,))] == [2]
    assert load_turn_ids(data, ["s2"]) == {"s2": frozenset({"D1:1"})}


def test_score_answers_per_category_and_overall(tmp_path: Path) -> None:
    data, answers = _write(tmp_path, _samples(), ANSWERS)
    report = score_answers(data, answers)
    # F1: 1, 2/3 ([in, 2022] vs [2022]), 1 ; BLEU-1: 1, 1/2, 1/2 ([paris, .] vs [paris])
    assert report.overall.count == 3
    assert report.overall.f1 == pytest.approx(8 / 9)
    assert report.overall.bleu1 == pytest.approx(2 / 3)
    assert report.overall.judge_accuracy == pytest.approx(0.5) and report.overall.judged == 2
    assert report.categories[4].f1 == pytest.approx(2 / 3)
    assert report.categories[4].bleu1 == pytest.approx(0.5)
    assert report.categories[3].judge_accuracy is None
    assert report.categories[1].count == 0 and report.categories[1].f1 is None
    assert report.missing == (("s1", 3),)
    assert report.ignored == 1
    assert json.loads(json.dumps(report.to_dict()))["overall"]["count"] == 3


def test_score_answers_for_chosen_samples(tmp_path: Path) -> None:
    data, answers = _write(tmp_path, _samples(), ANSWERS)
    report = score_answers(data, answers, samples=["s2"])
    assert report.overall.count == 1 and report.missing == () and report.ignored == 3
    with pytest.raises(NotFoundError, match="nope"):
        score_answers(data, answers, samples=["nope"])


def test_format_markdown_follows_table_1(tmp_path: Path) -> None:
    data, answers = _write(tmp_path, _samples(), ANSWERS)
    text = format_markdown(score_answers(data, answers), label="run")
    header, _, row = text.splitlines()[:3]
    assert header.startswith("| Method | Single Hop F1 | Single Hop BLEU | Single Hop ACC | Multi Hop F1")
    assert header.endswith("Average F1 | Average BLEU | Average ACC |")
    assert row.split(" | ")[-3:] == ["88.89", "66.67", "50.00 |"]
    assert "without an answer (not scored): 1" in text


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"sample_id": "s1", "qa_index": 9, "answer": "x"}, "unknown question"),
        ({"sample_id": "zz", "qa_index": 0, "answer": "x"}, "unknown question"),
        ({"sample_id": "s1", "qa_index": 0, "answer": None}, "'answer'"),
        ({"sample_id": "s1", "qa_index": "0", "answer": "x"}, "qa_index"),
        ({"sample_id": "s1", "qa_index": 0, "answer": "x", "judge": "yes"}, "judge"),
    ],
)
def test_bad_answer_records(tmp_path: Path, record: dict[str, Any], message: str) -> None:
    data, answers = _write(tmp_path, _samples(), [record])
    with pytest.raises(InputError, match=message):
        score_answers(data, answers)


def test_duplicate_answers_and_bad_json_lines(tmp_path: Path) -> None:
    data, answers = _write(tmp_path, _samples(), [ANSWERS[0], ANSWERS[0]])
    with pytest.raises(InputError, match="two answers"):
        score_answers(data, answers)
    answers.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1"):
        score_answers(data, answers)


def test_malformed_locomo_files(tmp_path: Path) -> None:
    data, answers = _write(tmp_path, {"sample_id": "s1"}, [])
    with pytest.raises(InputError, match="list of samples"):
        score_answers(data, answers)
    broken = _samples()
    del broken[0]["qa"][0]["answer"]
    data, answers = _write(tmp_path, broken, [])
    with pytest.raises(InputError, match=r"s1, qa\[0\].*answer"):
        load_questions(data)
    broken = _samples()
    broken[1]["qa"][0]["category"] = 7
    data, answers = _write(tmp_path, broken, [])
    with pytest.raises(InputError, match="category"):
        load_questions(data)
    with pytest.raises(InputError, match="cannot read"):
        load_questions(tmp_path / "missing.json")
