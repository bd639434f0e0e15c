"""prompts.judge: the LLM-as-judge prompt and its label schema."""

from __future__ import annotations

import pytest

from anchormem.errors import LLMResponseError
from anchormem.prompts import judge


def test_build_holds_the_three_answers_and_generous_rules() -> None:
    user = judge.build("When?", "7 May 2023", "May 7, 2023")[-1]["content"]
    assert (
        "Gold answer: <gold>7 May 2023</gold>" in user
        and "Generated answer: <generated>May 7, 2023</generated>" in user
    )
    assert "CORRECT" in user and "WRONG" in user and "relative" in user


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"label": "CORRECT"}', True),
        ('{"label": "wrong"}', False),
        ('```json\n{"reasoning": "same day", "label": "CORRECT"}\n```', True),
        ("CORRECT", True),
        ("The answer is INCORRECT.", False),
        ("<think>is it correct or wrong?</think>WRONG", False),
    ],
)
def test_parse(text: str, expected: bool) -> None:
    assert judge.parse(text) is expected


@pytest.mark.parametrize("text", ["", "maybe", "CORRECT or WRONG", '{"label": "UNSURE"}'])
def test_parse_rejects_unclear_labels(text: str) -> None:
    with pytest.raises(LLMResponseError):
        judge.parse(text)
