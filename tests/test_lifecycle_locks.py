"""Writer locks: a user's lock covers its agent and run scopes; agents' own memories each have their own."""

from __future__ import annotations

from anchormem.lifecycle.locks import WriterLocks
from anchormem.wire.scopes import make_scope


def test_a_user_and_its_sub_scopes_share_one_lock() -> None:
    locks = WriterLocks()
    user = locks.of(make_scope("maya"))
    assert locks.of(make_scope("maya", "coach")) is user
    assert locks.of(make_scope("maya", "coach", "run-1")) is user
    assert locks.of(make_scope("sam")) is not user


def test_agents_own_memories_do_not_wait_on_one_another() -> None:
    locks = WriterLocks()
    coach = locks.of(make_scope(None, "coach"))
    assert locks.of(make_scope(None, "coach", "run-1")) is coach
    assert locks.of(make_scope(None, "planner")) is not coach
    # an agent's own memory is not a user's, whatever the user is called
    assert locks.of(make_scope("coach")) is not coach
    assert locks.of(make_scope("maya", "coach")) is not coach
