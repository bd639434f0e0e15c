"""prompts.events: the integration prompt and its answer schema."""

from __future__ import annotations

import pytest

from anchormem.errors import InputError, LLMResponseError
from anchormem.prompts import events

PAIRS = [
    ('DATE: 8 May, 2023\nCaroline said, "I went to a support group."', "Caroline went to a support group."),
    (
        'DATE: 25 May, 2023\nCaroline said, "I signed up for counseling courses."',
        "Caroline studies counseling.",
    ),
]


def test_build_numbers_each_excerpt_with_its_fact() -> None:
    user = events.build(PAIRS)[-1]["content"]
    assert "Excerpt 1:" in user and "Excerpt 2:" in user
    assert "Key fact: <fact>Caroline studies counseling.</fact>" in user and "\n  DATE: 25 May, 2023" in user
    assert '{"event":' in user and "third person" in user
    with pytest.raises(InputError):
        events.build([])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"event": "Caroline went to a group on 7 May 2023."}', "Caroline went to a group on 7 May 2023."),
        ('```json\n{"event": "A\\nB"}\n```', "A B"),
        ("Caroline went to a group.  She then studied.", "Caroline went to a group. She then studied."),
        ("Event: Caroline went to a group.", "Caroline went to a group."),
        ('"Caroline went."', "Caroline went."),
        ("Caroline [a counselor] went.", "Caroline [a counselor] went."),
    ],
)
def test_parse_accepts(text: str, expected: str) -> None:
    assert events.parse(text) == expected


@pytest.mark.parametrize("text", ["", "<think>...</think>", '{"event": ""}', '{"event": "cut', '{"other": "x"}', "[1]"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(LLMResponseError):
        events.parse(text)
