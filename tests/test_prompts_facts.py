"""prompts.facts: the extraction prompt and its answer schema."""

from __future__ import annotations

import pytest

from anchormem.errors import LLMResponseError
from anchormem.prompts import facts
from anchormem.render.fence import fenced

CONTEXT = (
    "DATE: 1:56 pm on 8 May, 2023\n"
    'Caroline said, "I went to a LGBTQ support group yesterday."\n'
    'Melanie said, "Wow!" and shared a photo of a sunset.'
)


def test_build_holds_the_context_and_the_rules() -> None:
    messages = facts.build(CONTEXT)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[-1]["content"]
    assert user.rstrip().endswith("Answer:") and fenced("excerpt", CONTEXT) in user, "the context, fenced as data"
    assert "\n  ".join(CONTEXT.split("\n")) in user
    assert "JSON list of strings" in user and "DATE line" in user and "EVERY speaker" in user
    assert facts.VERSION


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '["Caroline went to a support group on 7 May 2023."]',
            ["Caroline went to a support group on 7 May 2023."],
        ),
        ('{"facts": ["a", "b"]}', ["a", "b"]),
        ('{"result": ["a"]}', ["a"]),
        ('[{"fact": "a"}, {"text": "b"}]', ["a", "b"]),
        ('["  a  ", "", "a", "b\\n c"]', ["a", "b c"]),
        ("[]", []),
        ('{"facts": []}', []),
    ],
)
def test_parse_accepts(text: str, expected: list[str]) -> None:
    assert facts.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    ["Caroline went out.", '"a fact"', "[1, 2]", '["a", 3]', '{"a": ["x"], "b": ["y"]}', '["", " "]', "{}"],
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(LLMResponseError):
        facts.parse(text)
