"""Incremental growth: new sessions cost only what is new, and order does not change the memory."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages

SESSION_3 = [("Ana", "Pico learned to fetch a frisbee at the beach."), ("Ben", "Next I will learn a Bach sonata.")]
SESSIONS = [SESSION_1, SESSION_2, SESSION_3]


def _mem(tmp_path: Path, name: str, llm: FakeLLM | None = None) -> Memory:
    cfg = Settings.load(env={}, store=str(tmp_path / name), embed__backend="hash")
    return Memory(cfg, embedder=HashEmbedder(), llm=llm)


def _all_messages() -> list[dict[str, str]]:
    return [m for i, s in enumerate(SESSIONS, 1) for m in messages(s, str(i))]


def test_session_by_session_equals_all_at_once(tmp_path: Path) -> None:
    with _mem(tmp_path, "a.db") as once, _mem(tmp_path, "b.db") as steps:
        once.add(_all_messages(), user_id="u")
        for i, s in enumerate(SESSIONS, 1):
            steps.add(messages(s, str(i)), user_id="u")
        for kind in ("turns", "contexts", "facts"):
            assert {r.id for r in once.records(kind, user_id="u")} == {r.id for r in steps.records(kind, user_id="u")}
        q = "Pico beach frisbee"
        assert once.search(q, user_id="u").turn_ids == steps.search(q, user_id="u").turn_ids


def test_llm_calls_are_proportional_to_what_is_new(tmp_path: Path) -> None:
    llm = FakeLLM(llm_responder)
    with _mem(tmp_path, "m.db", llm) as mem:
        mem.add(messages(SESSION_1, "1"), user_id="u")
        events_before = {e.id for e in mem.events(user_id="u")}
        calls = llm.calls
        report = mem.add(messages(SESSION_2, "2"), user_id="u")
        extraction = [r for r in llm.requests[calls:] if "Excerpt:" in r[-1]["content"]]
        assert len(extraction) == report.contexts_added == 2  # only the new windows are read
        assert report.llm_calls == llm.calls - calls
        assert events_before <= {e.id for e in mem.events(user_id="u")}  # old events stay
        again = mem.add(messages(SESSION_2, "2"), user_id="u")
        assert again.llm_calls == 0 and mem.history(user_id="u")[-1].detail["sessions"] == 1


def test_a_growing_session_supersedes_its_partial_window(memory: Memory) -> None:
    memory.add(messages(SESSION_1[:3], "1"), user_id="u")
    partial = {c.id for c in memory.contexts(user_id="u") if len(c.turn_ids) == 1}
    assert len(partial) == 1
    report = memory.add(messages(SESSION_1, "1"), user_id="u")
    assert report.contexts_superseded == 1
    ids = {c.id for c in memory.contexts(user_id="u")}
    assert not partial & ids
    assert all(f.context_id in ids for f in memory.facts(user_id="u"))
    fact_ids = {f.id for f in memory.facts(user_id="u")}
    assert all(set(e.fact_ids) <= fact_ids for e in memory.events(user_id="u"))
    assert memory.history(user_id="u")[-1].detail["contexts_superseded"] == 1
