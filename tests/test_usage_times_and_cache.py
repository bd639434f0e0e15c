"""Usage reads right: wall time and summed call time under their own names (concurrent calls count once
on the wall clock), and tokens of calls answered from the cache apart from spent ones."""

from __future__ import annotations

import threading
from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.eval.locomo import add_locomo
from anchormem.llm.accounting import Accounting
from anchormem.llm.cache import CachedLLM
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import Usage
from tests.conftest import llm_responder
from tests.fixtures import write_locomo

HELLO = [{"role": "user", "content": "Say hello."}]


def test_concurrent_calls_count_once_on_the_wall_clock() -> None:
    accounting = Accounting()
    one_add = accounting.child()
    llm = one_add.wrap(FakeLLM("hi", delay=0.3), "extraction")
    threads = [threading.Thread(target=llm.complete, args=(HELLO,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for usage in (one_add.usage("extraction"), accounting.usage("extraction")):
        assert usage.calls == 4
        assert 1.15 < usage.call_seconds < 2.5, usage  # four calls of 0.3 s, summed
        assert 0.28 < usage.wall_seconds < 0.6, usage  # they ran side by side


def test_calls_one_after_another_have_wall_time_equal_to_call_time() -> None:
    accounting = Accounting()
    llm = accounting.wrap(FakeLLM("hi", delay=0.05), "answering")
    for _ in range(3):
        llm.complete(HELLO)
    usage = accounting.usage("answering")
    assert abs(usage.wall_seconds - usage.call_seconds) < 0.02


def test_cached_tokens_are_not_counted_as_spent(tmp_path: Path) -> None:
    accounting = Accounting()
    llm = accounting.wrap(CachedLLM(FakeLLM("hello there"), tmp_path / "cache.db"), "answering")
    first, again = llm.complete(HELLO), llm.complete(HELLO)
    assert again.cached and not first.cached
    u = accounting.usage("answering")
    assert (u.calls, u.cached_calls) == (2, 1)
    assert (u.prompt_tokens, u.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert (u.cached_prompt_tokens, u.cached_completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert u.total_prompt_tokens == 2 * first.prompt_tokens


def test_an_add_with_concurrent_extraction_reports_wall_time_within_the_add(tmp_path: Path) -> None:
    settings = Settings.load(
        env={},
        store=str(tmp_path / "m.db"),
        embed__backend="hash",
        llm__base_url="http://unused.invalid/v1",
        llm__model="fake-llm",
        llm__concurrency=4,
    )
    with Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(llm_responder, delay=0.25)) as mem:
        report = add_locomo(mem, write_locomo(tmp_path / "c.json"), sample="conv-1", user_id="u")
        stored = mem.stats(user_id="u").usage
    extraction = stored["extraction"]
    assert extraction.calls == report.contexts_added == 5
    assert extraction.call_seconds > 1.2  # five calls of 0.25 s
    assert extraction.wall_seconds < extraction.call_seconds * 0.75  # four at a time
    assert extraction.wall_seconds <= report.seconds


def test_stored_usage_keeps_every_field(tmp_path: Path) -> None:
    from anchormem.model import Scope
    from anchormem.store.sqlite import SQLiteStore

    store = SQLiteStore(tmp_path / "s.db")
    given = Usage(
        calls=3,
        prompt_tokens=10,
        completion_tokens=4,
        call_seconds=1.5,
        cached_calls=1,
        failed_calls=0,
        cached_prompt_tokens=7,
        cached_completion_tokens=2,
        wall_seconds=0.6,
    )
    store.record_usage(Scope("u"), {"answering": given})
    store.record_usage(Scope("u"), {"answering": given})
    got = store.usage(Scope("u"))["answering"]
    store.close()
    assert got.cached_prompt_tokens == 14 and got.wall_seconds == 1.2 and got.call_seconds == 3.0


def test_stats_text_names_wall_and_call_time(tmp_path: Path) -> None:
    from anchormem.cli.text import stats_text
    from anchormem.model import Stats

    usage = {
        "answering": Usage(calls=2, prompt_tokens=786, cached_prompt_tokens=786, call_seconds=2.0, wall_seconds=1.0)
    }
    text = stats_text(Stats(1, 1, 0, 2, 1, 0, 0, usage))
    assert "786 prompt + 0 completion tokens spent (+ 786 + 0 from the cache)" in text
    assert "wall time 1.0 s, call time 2.0 s" in text
