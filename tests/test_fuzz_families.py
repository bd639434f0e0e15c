"""Hypothesis over issue 30's families: any JSON nested past the bound, any value that is not a real boolean,
any ISO-looking date whose fields do not exist. Each is refused as an ``InputError`` (never a RecursionError,
a TypeError or a silent truthy reading), and the stored memory is unchanged."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from anchormem.errors import InputError
from anchormem.ingest.messages import normalise
from anchormem.memory import Memory
from anchormem.text.times import message_time
from anchormem.wire.validation import MAX_DEPTH, check_metadata
from tests.fixtures import SESSION_1, messages

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
JSON_LEAF = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.text(max_size=5)


def _wrap(value: Any, kinds: list[bool]) -> Any:
    for as_list in kinds:
        value = [value] if as_list else {"k": value}
    return value


@FUZZ
@given(leaf=JSON_LEAF, kinds=st.lists(st.booleans(), min_size=MAX_DEPTH + 1, max_size=3000))
def test_any_json_nested_past_the_bound_is_an_input_error(leaf: Any, kinds: list[bool]) -> None:
    value = {"top": _wrap(leaf, kinds)}
    try:
        check_metadata(value, "message 1")
    except InputError as exc:
        assert "nested more than" in str(exc)
    else:  # pragma: no cover - a failure of the bound
        raise AssertionError("accepted metadata nested past the bound")


@FUZZ
@given(leaf=JSON_LEAF, kinds=st.lists(st.booleans(), max_size=MAX_DEPTH - 1))
def test_json_within_the_bound_is_kept_as_given(leaf: Any, kinds: list[bool]) -> None:
    value = {"top": _wrap(leaf, kinds)}
    if isinstance(leaf, str) and ("\x00" in leaf or any(0xD800 <= ord(c) <= 0xDFFF for c in leaf)):
        return
    assert check_metadata(value, "message 1") == value


NOT_BOOL = (
    st.sampled_from(["false", "False", "no", "0", "off", "", "true", "yes", "1"])
    | st.integers()
    | st.floats(allow_nan=False)
    | st.lists(st.integers(), max_size=2)
    | st.none()
    | st.text(max_size=6)
)


@FUZZ
@given(value=NOT_BOOL)
def test_delete_all_never_reads_a_non_boolean_as_true(memory: Memory, value: Any) -> None:
    assume(not isinstance(value, bool))
    if not memory.users():
        memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="'all' must be true or false"):
        memory.delete(user_id="ana", all=value)
    assert len(memory.turns(user_id="ana")) == len(SESSION_1)


@FUZZ
@given(
    year=st.integers(1, 9999),
    month=st.integers(0, 99),
    day=st.integers(0, 99),
    hour=st.integers(0, 99),
    minute=st.integers(0, 99),
)
def test_an_iso_date_is_kept_only_when_it_exists(year: int, month: int, day: int, hour: int, minute: int) -> None:
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}"
    try:
        datetime(year, month, day, hour, minute)
        exists = True
    except ValueError:
        exists = False
    if exists:
        shown, given_text = message_time(text)
        assert given_text == text and shown
    else:
        try:
            normalise({"role": "user", "content": "hi", "timestamp": text}, "message 1")
        except InputError as exc:
            assert "not a valid date or time" in str(exc)
        else:  # pragma: no cover
            raise AssertionError(f"accepted {text}")
