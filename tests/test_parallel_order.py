"""LLM work run concurrently is handed back in the order it was given, whatever order the calls finish in."""

from __future__ import annotations

import time

import pytest

from anchormem.errors import LLMError, LLMUnavailableError
from anchormem.ingest.parallel import in_order


def test_results_come_in_the_order_of_the_items_when_later_calls_finish_first() -> None:
    finished: list[int] = []

    def slow_first(n: int) -> int:
        time.sleep(0.2 if n == 0 else 0.0)
        finished.append(n)
        return n * 10

    got = list(in_order(slow_first, [0, 1, 2, 3], concurrency=4))
    assert finished[-1] == 0  # the first item's call finished last
    assert got == [(0, 0), (1, 10), (2, 20), (3, 30)]


def test_a_failed_item_keeps_its_place() -> None:
    def fails_on_two(n: int) -> int:
        if n == 2:
            raise LLMError("unparseable")
        return n

    got = list(in_order(fails_on_two, [1, 2, 3], concurrency=2))
    assert [item for item, _ in got] == [1, 2, 3]
    assert isinstance(got[1][1], LLMError) and got[2][1] == 3


def test_a_dead_endpoint_hands_back_what_finished_in_order_then_raises() -> None:
    def first_slow_then_dead(n: int) -> int:
        if n == 0:
            time.sleep(0.3)
            raise LLMUnavailableError("down")
        if n in (1, 2):
            return n
        raise LLMUnavailableError("down")

    got: list[tuple[int, object]] = []
    with pytest.raises(LLMUnavailableError):
        for pair in in_order(first_slow_then_dead, list(range(12)), concurrency=3):
            got.append(pair)
    kept = [item for item, result in got if not isinstance(result, LLMError)]
    assert kept == [1, 2]  # finished before the endpoint was taken for dead, handed back, in order
    assert [item for item, _ in got] == sorted(item for item, _ in got)
