"""complete_parsed, JSON repair and FakeLLM."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anchormem.errors import LLMError, LLMResponseError, LLMUnavailableError
from anchormem.llm import FakeLLM, UnparsableResponseError, cache_key, complete_parsed
from anchormem.llm.fake import record
from anchormem.llm.jsonrepair import clean_response, loads_lenient
from anchormem.llm.protocol import LLM, CompletionParams
from anchormem.prompts import facts

ASK = [{"role": "user", "content": "List the facts."}]


def string_list(text: str) -> list[str]:
    value = json.loads(text)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise LLMResponseError("not a list of strings")
    return value


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('["a", "b"]', ["a", "b"]),
        ('```json\n["a", "b"]\n```', ["a", "b"]),
        ('<think>The user wants [facts]. OK.</think>\n["a"]', ["a"]),
        ('<THINK>\nhmm\n</THINK>```\n["a"]\n```', ["a"]),
        ('I thought about [it] a lot.</think>["a"]', ["a"]),  # opening tag eaten by the chat template
        ('Sure! Here are the facts:\n["a", "b"]\nHope this helps.', ["a", "b"]),
        ('["a", "b",]', ["a", "b"]),
        ("['Caroline's dog', 'b']", ["Caroline's dog", "b"]),
        ('["He said "hi" to me", "x"]', ['He said "hi" to me', "x"]),
        ('["a", "b", "c is cut o', ["a", "b"]),
        ('{"facts": ["a", "b"', ["a", "b"]),
        ("[]", []),
    ],
)
def test_answers_are_repaired(answer: str, expected: list[str]) -> None:
    llm = FakeLLM(answer)
    assert complete_parsed(llm, ASK, facts.parse) == expected
    assert llm.calls == 1


def test_unclosed_think_is_dropped_and_retried() -> None:
    llm = FakeLLM(['<think>Let me list ["draft"] and', '["final"]'])
    assert complete_parsed(llm, ASK, string_list) == ["final"]
    assert llm.calls == 2


def test_non_json_is_reasked_with_a_json_reminder() -> None:
    llm = FakeLLM(["Caroline likes painting.", '["Caroline likes painting."]'])
    assert complete_parsed(llm, ASK, facts.parse) == ["Caroline likes painting."]
    retry = llm.requests[1]
    assert retry[: len(ASK)] == ASK
    assert retry[-2] == {"role": "assistant", "content": "Caroline likes painting."}
    assert retry[-1]["role"] == "user" and "valid JSON" in retry[-1]["content"]


def test_persistent_garbage_raises_with_the_raw_text() -> None:
    llm = FakeLLM("I cannot do that.")
    with pytest.raises(UnparsableResponseError) as info:
        complete_parsed(llm, ASK, facts.parse, attempts=3)
    assert llm.calls == 3
    assert info.value.raw == "I cannot do that." and info.value.attempts == 3
    assert isinstance(info.value, LLMResponseError)


@pytest.mark.parametrize("answer", ["[", '["cut', '{"facts": [', "", "<think>only thinking"])
def test_truncated_output_is_never_an_empty_list(answer: str) -> None:
    with pytest.raises(LLMResponseError):
        complete_parsed(FakeLLM(answer), ASK, facts.parse, attempts=2)


def test_llm_errors_pass_through_without_retry() -> None:
    llm = FakeLLM('["a"]', fail_first=1)
    with pytest.raises(LLMUnavailableError):
        complete_parsed(llm, ASK, facts.parse)
    assert llm.calls == 1
    assert complete_parsed(llm, ASK, facts.parse) == ["a"]


def test_parse_gets_plain_text_when_there_is_no_json() -> None:
    assert complete_parsed(FakeLLM("<think>x</think> Paris "), ASK, str.upper) == "PARIS"


@given(st.lists(st.text(min_size=1, max_size=20), max_size=6))
def test_wrapped_json_lists_round_trip(items: list[str]) -> None:
    text = json.dumps(items)
    for wrapped in (text, f"```json\n{text}\n```", f"<think>plan</think>\nHere you go: {text}"):
        assert loads_lenient(wrapped) == items


@given(st.lists(st.text(alphabet=st.characters(exclude_characters="`<"), max_size=15), min_size=1, max_size=5))
def test_any_cut_keeps_only_complete_items(items: list[str]) -> None:
    text = json.dumps(items)
    for cut in range(1, len(text)):
        try:
            value: Any = loads_lenient(text[:cut])
        except LLMResponseError:
            continue
        assert isinstance(value, list) and value and value == items[: len(value)]


def test_clean_response() -> None:
    assert clean_response("<think>a</think>\n```json\n{}\n```") == "{}"


def test_fake_llm_protocol_recorded_scripted_and_callable() -> None:
    recorded: dict[str, str] = {}
    record(recorded, ASK, '["x"]')
    params = CompletionParams(max_tokens=5)
    recorded[cache_key("fake-llm", ASK, params)] = '["y"]'
    fake = FakeLLM(recorded)
    assert isinstance(fake, LLM)
    assert fake.complete(ASK).text == '["x"]'
    assert fake.complete(ASK, params).text == '["y"]'
    with pytest.raises(LLMError):
        fake.complete([{"role": "user", "content": "unrecorded"}])
    assert fake.calls == 3

    scripted = FakeLLM(["one", "two"])
    assert [scripted.complete(ASK).text for _ in range(2)] == ["one", "two"]
    with pytest.raises(LLMError):
        scripted.complete(ASK)

    echo = FakeLLM(lambda messages: messages[-1]["content"].upper(), model="echo")
    out = echo.complete(ASK)
    assert out.text == "LIST THE FACTS." and out.model == "echo" and out.prompt_tokens > 0
    echo.fail_next(2, failure=lambda: LLMResponseError("boom"))
    for _ in range(2):
        with pytest.raises(LLMResponseError):
            echo.complete(ASK)
    assert echo.complete(ASK).text and echo.failed_calls == 2
