"""Forgetting: delete by turn, session, context or user cascades to everything derived, everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, NotFoundError
from anchormem.llm.cache import CachedLLM
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages


def _store_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def _everything(mem: Memory, user: str) -> str:
    """Every text a reader of this memory can reach: records, export, search results."""
    parts: list[str] = []
    for kind in ("turns", "contexts", "facts", "events"):
        parts.extend(repr(r) for r in mem.records(kind, user_id=user))
    parts.extend(repr(r) for r in mem.export(user_id=user))
    parts.extend(repr(h) for h in mem.history(user_id=user))
    return "\n".join(parts)


def test_delete_session_cascades_and_scrubs_the_file(memory: Memory, settings: Settings) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    memory.add(messages(SESSION_2, "2"), user_id="ana")
    memory.search("Pico beach", user_id="ana")  # a cached snapshot that must not survive
    report = memory.delete(user_id="ana", session="1")
    assert (report.turns, report.contexts) == (5, 3) and report.facts > 0
    left = _everything(memory, "ana")
    assert "Pico loves the beach" not in left and "Bach suite" in left
    hits = memory.search("Pico loves the beach coast", user_id="ana")
    assert all(h.context.session == "2" for h in hits.contexts)
    assert b"Pico loves the beach" not in _store_bytes(settings.store_path)
    history = memory.history(user_id="ana")
    assert [h.op for h in history] == ["add", "add", "delete"]
    assert history[-1].detail["target"] == "session" and history[-1].detail["turns"] == 5


def test_delete_turn_rebuilds_the_sessions_windows(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    turn = memory.turns(user_id="ana")[2]
    report = memory.delete(user_id="ana", turn=turn.id)
    assert report.turns == 1 and report.contexts == 2 and report.contexts_rebuilt == 2
    turns = memory.turns(user_id="ana")
    assert len(turns) == 4
    covered = {t for c in memory.contexts(user_id="ana") for t in c.turn_ids}
    assert covered == {t.id for t in turns}  # every surviving turn is searchable again
    assert "Pico loves the beach" not in _everything(memory, "ana")


def test_delete_context_and_all(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    memory.add(messages(SESSION_2, "1"), user_id="ana", agent_id="helper")
    ctx = memory.contexts(user_id="ana")[0]
    memory.delete(user_id="ana", context=ctx.id)
    assert not set(ctx.turn_ids) & {t.id for t in memory.turns(user_id="ana")}
    report = memory.delete(user_id="ana", all=True)
    assert report.turns == len(SESSION_1) - len(ctx.turn_ids) + len(SESSION_2)
    assert memory.users() == []
    assert memory.search("Pico", user_id="ana").contexts == ()  # a deleted memory searches to nothing
    with pytest.raises(NotFoundError):
        memory.stats(user_id="ana")
    assert [h.op for h in memory.history(user_id="ana")][-2:] == ["delete", "delete"]
    resent = memory.add(messages(SESSION_1[:2], "1"), user_id="ana")  # a re-sent history stays forgotten
    assert resent.turns_added == 0 and "deleted earlier" in resent.notes[0]
    memory.add(messages(SESSION_1[:2], "1"), user_id="ana", readd=True)  # added again on purpose
    assert len(memory.turns(user_id="ana")) == 2


def test_delete_needs_exactly_one_known_target(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError):
        memory.delete(user_id="ana")
    with pytest.raises(InputError):
        memory.delete(user_id="ana", session="1", all=True)
    with pytest.raises(NotFoundError):
        memory.delete(user_id="ana", session="9")
    with pytest.raises(NotFoundError):
        memory.delete(user_id="ana", turn="nope")
    with pytest.raises(NotFoundError):
        memory.delete(user_id="bo", all=True)


def test_delete_forgets_cached_llm_responses(settings: Settings, tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.db"
    llm = CachedLLM(FakeLLM(llm_responder), cache_path)
    with Memory(settings, embedder=HashEmbedder(), llm=llm) as mem:
        mem.add(messages(SESSION_1, "1"), user_id="ana")
        mem.add(messages(SESSION_2, "2"), user_id="ana")
        before = len(llm)
        report = mem.delete(user_id="ana", session="1")
        assert report.cache_entries_forgotten > 0 and len(llm) < before
        assert b"Pico loves the beach" not in _store_bytes(cache_path)
        assert b"Pico loves the beach" not in _store_bytes(settings.store_path)
        assert mem.history(user_id="ana")[0].detail["facts_by"].startswith("llm:fake")
    llm.close()


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sizes=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    words=st.lists(WORDS, min_size=8, max_size=8),
    picks=st.lists(
        st.tuples(st.sampled_from(["turn", "session", "context"]), st.integers(0, 50)), min_size=1, max_size=3
    ),
)
def test_property_deleted_words_leave_no_trace(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], words: list[str], picks: list[tuple[str, int]]
) -> None:
    path = tmp_path_factory.mktemp("prop") / "mem.db"
    cfg = Settings.load(env={}, store=str(path), embed__backend="hash")
    n = 0
    with Memory(cfg, embedder=HashEmbedder()) as mem:
        for s, size in enumerate(sizes):
            turns = []
            for _ in range(size):
                n += 1
                turns.append(("Ana" if n % 2 else "Ben", f"marker{n:04d}x {words[n % 8]} {words[(n * 3) % 8]} talk"))
            mem.add(messages(turns, str(s + 1)), user_id="u")
        gone: set[str] = set()
        for kind, k in picks:
            turns_now = mem.turns(user_id="u")
            if not turns_now:
                break
            if kind == "turn":
                victim = turns_now[k % len(turns_now)]
                mem.delete(user_id="u", turn=victim.id)
                gone.add(victim.text)
            elif kind == "session":
                label = turns_now[k % len(turns_now)].session
                gone.update(t.text for t in turns_now if t.session == label)
                mem.delete(user_id="u", session=label)
            else:
                ctx = mem.contexts(user_id="u")[k % len(mem.contexts(user_id="u"))]
                gone.update(t.text for t in turns_now if t.id in ctx.turn_ids)
                mem.delete(user_id="u", context=ctx.id)
        markers = {t.split()[0] for t in gone}
        remaining = mem.turns(user_id="u") if mem.users() else []
        assert len(remaining) == n - len(gone)  # nothing else was removed
        assert not markers & {t.text.split()[0] for t in remaining}
        if remaining:
            text = _everything(mem, "u")
            for t in remaining:
                assert t.text in text
            texts = [f.text for f in mem.facts(user_id="u")] + [e.text for e in mem.events(user_id="u")]
            texts += [c.text for c in mem.contexts(user_id="u")]
            for marker in markers:
                assert marker not in text
                assert not any(marker in x for x in texts)
                result = mem.search(marker + " talk", user_id="u")
                assert all(marker not in h.context.text for h in result.contexts)
                assert all(marker not in e.event.text for e in result.events)
        raw = _store_bytes(path)
        for marker in markers:
            assert marker.encode() not in raw
