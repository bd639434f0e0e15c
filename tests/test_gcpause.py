"""The collector pause of a snapshot load: nested and concurrent pauses share one, the state is restored."""

from __future__ import annotations

import gc

import pytest

from anchormem._util.gcpause import paused_gc


def test_nested_pauses_restore_the_collector() -> None:
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()


def test_a_failing_block_restores_the_collector() -> None:
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_off_before_stays_off() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_pause_made_goes_to_the_oldest_generation() -> None:
    """Not left in the youngest, where the next young and middle collections would walk all of it."""
    with paused_gc():
        made = [[i] for i in range(1000)]
    gc.disable()  # no collection while looking (the lists of objects below are allocations too)
    try:
        younger = {id(o) for o in (*gc.get_objects(generation=0), *gc.get_objects(generation=1))}
        oldest = {id(o) for o in gc.get_objects(generation=2)}
    finally:
        gc.enable()
    assert id(made) not in younger and id(made[0]) not in younger
    assert id(made) in oldest and id(made[-1]) in oldest
    assert gc.get_freeze_count() == 0  # moved, not frozen: a full collection still reaches it
