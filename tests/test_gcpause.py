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
