"""Run LLM work over many items with bounded concurrency, yielding results as they finish (:func:`run_bounded`),
and tell one item's unavailable endpoint from a dead one (:func:`tolerant`)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar, cast

from anchormem.errors import LLMError, LLMUnavailableError

T = TypeVar("T")
R = TypeVar("R")
DEAD_AFTER = 4  # consecutive unavailable extractions before the endpoint is taken for dead


def run_bounded(fn: Callable[[T], R], items: Sequence[T], concurrency: int) -> Iterator[tuple[T, R | LLMError]]:
    """Yield ``(item, result or LLMError)`` as items finish.

    At most ``concurrency`` calls are in flight. When the endpoint is unavailable
    (:class:`LLMUnavailableError`), no new work is started: the error is yielded for
    the failed item and then re-raised, so the caller keeps what finished before.
    """
    if not items:
        return
    todo = list(items)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        running: dict[Future[R], T] = {}
        dead: LLMUnavailableError | None = None
        while todo or running:
            while todo and len(running) < max(1, concurrency) and dead is None:
                item = todo.pop(0)
                running[pool.submit(fn, item)] = item
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                item = running.pop(fut)
                result: R | LLMError
                try:
                    result = fut.result()
                except LLMUnavailableError as exc:
                    dead = dead or exc
                    result = exc
                except LLMError as exc:
                    result = exc
                yield item, result
        if dead is not None:
            raise dead


def tolerant(fn: Callable[[T], R], items: Sequence[T], concurrency: int) -> Iterator[tuple[T, R | LLMError]]:
    """:func:`run_bounded`, judging unavailability here: an isolated time-out or 5xx is one item's fault
    (yielded as its result); ``DEAD_AFTER`` (at least twice the concurrency) of them in a row mean a dead
    endpoint (raised)."""

    def attempt(item: T) -> R | LLMUnavailableError:
        try:
            return fn(item)
        except LLMUnavailableError as exc:
            return exc

    results = cast(Generator[tuple[T, Any], None, None], run_bounded(attempt, items, concurrency))
    streak = 0
    try:
        for item, result in results:
            streak = streak + 1 if isinstance(result, LLMUnavailableError) else 0
            if streak >= max(DEAD_AFTER, 2 * concurrency):
                raise result
            yield item, result
    finally:
        results.close()


def in_order(fn: Callable[[T], R], items: Sequence[T], concurrency: int) -> Iterator[tuple[T, R | LLMError]]:
    """:func:`tolerant`, its results yielded in the order of ``items`` (each as soon as every earlier item has
    its result), so what a caller stores does not depend on which call happened to finish first: facts stored
    in completion order made a rebuild from the same answers cluster around other seeds and ask the LLM again.
    When the endpoint is taken for dead, the results already held are yielded (in order) before the error."""
    held: dict[int, tuple[T, R | LLMError]] = {}
    upto = 0
    try:
        for (index, item), result in tolerant(lambda pair: fn(pair[1]), list(enumerate(items)), concurrency):
            held[index] = (item, result)
            while upto in held:
                yield held.pop(upto)
                upto += 1
    except LLMUnavailableError:
        for index in sorted(held):
            yield held.pop(index)
        raise
