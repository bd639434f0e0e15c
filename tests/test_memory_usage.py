"""LLM usage is stored for the scope of the call that used it, also while other users' calls run."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import LLMUnavailableError
from anchormem.eval.locomo import add_locomo
from anchormem.llm.accounting import Accounting
from anchormem.llm.fake import FakeLLM
from anchormem.llm.protocol import Message
from anchormem.memory import Memory
from anchormem.model import Usage
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages, write_locomo

BO_TURNS = [("Bo", f"I keep bees on my roof in Lyon, hive number {i} gave honey this week.") for i in range(11)]


def _counts(usage: dict[str, Usage]) -> dict[str, tuple[int, int, int, int]]:
    """Everything of a usage but the wall time."""
    return {p: (u.calls, u.prompt_tokens, u.completion_tokens, u.failed_calls) for p, u in usage.items()}


def _settings(path: Path) -> Settings:
    return Settings.load(env={}, store=str(path), embed__backend="hash")


def _add(mem: Memory, source: Any, user: str) -> None:
    """Ana's conversation from a LoCoMo file (sample conv-1), Bo's as messages."""
    if user == "ana":
        add_locomo(mem, source, user_id=user, sample="conv-1")
    else:
        mem.add(source, user_id=user)


def _alone(tmp_path: Path, name: str, source: Any, user: str) -> dict[str, tuple[int, int, int, int]]:
    """The usage of one add on a memory of its own: what a concurrent add must store too."""
    with Memory(_settings(tmp_path / f"{name}.db"), embedder=HashEmbedder(), llm=FakeLLM(llm_responder)) as mem:
        _add(mem, source, user)
        return _counts(mem.stats(user_id=user).usage)


def test_concurrent_adds_of_two_users_store_exactly_their_own_usage(tmp_path: Path) -> None:
    ana_source = write_locomo(tmp_path / "conv.json")
    bo_source = messages(BO_TURNS)
    expected = {"ana": _alone(tmp_path, "ana", ana_source, "ana"), "bo": _alone(tmp_path, "bo", bo_source, "bo")}
    assert expected["ana"] != expected["bo"] and expected["ana"]["extraction"][0] > 0

    both_inside = threading.Barrier(2, timeout=60)
    waited = {"n": 0}
    lock = threading.Lock()

    def responder(msgs: list[Message]) -> str:
        # the first extraction call of each add waits until the other add is inside one too
        with lock:
            first_two = waited["n"] < 2 and "Excerpt:" in msgs[-1]["content"]
            waited["n"] += first_two
        if first_two:
            both_inside.wait()
        return llm_responder(msgs)

    fake = FakeLLM(responder)
    errors: list[BaseException] = []
    with Memory(_settings(tmp_path / "shared.db"), embedder=HashEmbedder(), llm=fake) as mem:

        def add(source: Any, user: str) -> None:
            try:
                _add(mem, source, user)
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [
            threading.Thread(target=add, args=(ana_source, "ana")),
            threading.Thread(target=add, args=(bo_source, "bo")),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        for user in ("ana", "bo"):
            assert _counts(mem.stats(user_id=user).usage) == expected[user]
        total = mem.accounting.total().calls
    assert total == fake.calls == sum(c[0] for user in expected.values() for c in user.values())


def test_searches_during_an_add_are_not_stored_as_the_adding_users_usage(tmp_path: Path) -> None:
    with Memory(_settings(tmp_path / "m.db"), embedder=HashEmbedder()) as offline:
        offline.add(messages(BO_TURNS), user_id="bo")
    searched: list[int] = []

    def responder(msgs: list[Message]) -> str:
        if not searched:  # another user's searches run while this add is inside an LLM call
            worker = threading.Thread(
                target=lambda: searched.extend(len(mem.search("bees", user_id="bo").contexts) for _ in range(3))
            )
            worker.start()
            worker.join()
        return llm_responder(msgs)

    with Memory(_settings(tmp_path / "m.db"), embedder=HashEmbedder(), llm=FakeLLM(responder)) as mem:
        mem.add(messages(SESSION_1), user_id="ana")
        assert len(searched) == 3 and all(searched)
        usage = mem.stats(user_id="ana").usage
        assert "extraction" in usage and "retrieval" not in usage
        assert mem.accounting.usage("retrieval").calls == 3


def test_answering_usage_is_stored_per_scope_and_shown_by_stats(llm_memory: Memory, fake_llm: FakeLLM) -> None:
    llm_memory.add(messages(SESSION_1), user_id="ana")
    llm_memory.add(messages(SESSION_2), user_id="ana", agent_id="helper")
    before = fake_llm.calls
    for _ in range(2):
        assert llm_memory.answer("What is the name of Ana's dog?", user_id="ana").text == "Pico"
    llm_memory.answer("What did Ben play?", user_id="ana", agent_id="helper")
    assert fake_llm.calls == before + 3
    answering = llm_memory.stats(user_id="ana").usage["answering"]
    assert answering.calls == 2 and answering.prompt_tokens > 0 and answering.completion_tokens > 0
    assert llm_memory.stats(user_id="ana", agent_id="helper").usage["answering"].calls == 1


def test_a_failed_answer_is_stored_as_a_failed_call(settings: Settings) -> None:
    broken = FakeLLM(llm_responder)
    with Memory(settings, embedder=HashEmbedder(), llm=broken) as mem:
        mem.add(messages(SESSION_1), user_id="ana")
        broken.fail_next(1)
        with pytest.raises(LLMUnavailableError):
            mem.answer("What is the name of Ana's dog?", user_id="ana")
        answering = mem.stats(user_id="ana").usage["answering"]
    assert (answering.calls, answering.failed_calls) == (1, 1)


def test_a_child_accounting_counts_its_own_calls_and_adds_them_to_its_parent() -> None:
    total = Accounting()
    ana, bo = total.child(), total.child()
    fake = FakeLLM("ok")
    for _ in range(2):
        ana.wrap(fake, "extraction").complete([{"role": "user", "content": "a"}])
    bo.wrap(fake, "answering").complete([{"role": "user", "content": "b"}])
    assert {p: u.calls for p, u in ana.used().items()} == {"extraction": 2}
    assert {p: u.calls for p, u in bo.used().items()} == {"answering": 1}
    assert {p: u.calls for p, u in total.used().items()} == {"extraction": 2, "answering": 1}
    assert Accounting().used() == {}
