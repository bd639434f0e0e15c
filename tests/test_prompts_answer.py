"""prompts.answer: the reader prompt, turn labelling and the answer schema."""

from __future__ import annotations

import pytest

from anchormem.errors import LLMResponseError
from anchormem.prompts import answer


def test_build_holds_memories_question_and_rules() -> None:
    user = answer.build('DATE: 8 May, 2023\n[D1:3] Caroline said, "hi"', "When did Caroline say hi?")[-1]["content"]
    assert "[D1:3] Caroline said" in user and "Question: When did Caroline say hi?" in user
    assert '"turn_ids"' in user and "DATE line" in user


def test_label_turns() -> None:
    text = 'DATE: 8 May, 2023\nA said, "x"\nB said, "y"'
    assert answer.label_turns(text, ["D1:1", "D1:2"]) == 'DATE: 8 May, 2023\n[D1:1] A said, "x"\n[D1:2] B said, "y"'
    odd = answer.label_turns(text, ["D1:1"])
    assert odd.splitlines()[1] == "[turns D1:1]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"answer": "7 May 2023", "turn_ids": ["D1:3", "D1:3", "D2:1"]}', ("7 May 2023", ["D1:3", "D2:1"])),
        ('{"answer": "Paris", "turn_ids": "D1:3, D4:5"}', ("Paris", ["D1:3", "D4:5"])),
        (
            '{"answer": ["painting", "hiking"], "turn_ids": ["[D1:3]", "none"]}',
            ("painting, hiking", ["D1:3"]),
        ),
        ('{"answer": 3}', ("3", [])),
        ('{"answer": "Paris", "turn_ids": ["D1:3", "D', ("Paris", ["D1:3"])),
        ("<think>Let me see.</think>Paris", ("Paris", [])),
        ("Answer: In 2022.", ("In 2022.", [])),
    ],
)
def test_parse_accepts(text: str, expected: tuple[str, list[str]]) -> None:
    assert answer.parse(text) == expected


@pytest.mark.parametrize("text", ["", '{"answer": ""}', '{"turn_ids": ["D1:1"]}', '{"answer": "cut'])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(LLMResponseError):
        answer.parse(text)
