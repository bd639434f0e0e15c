"""The Memory facade end to end on small fixtures, with fakes for the embedder and the LLM."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, LLMNotConfiguredError, LLMUnavailableError, NotFoundError
from anchormem.eval.locomo import add_all, add_locomo
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import SearchResult
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, locomo_sample, messages, write_locomo


def test_offline_add_and_search_with_provenance(memory: Memory, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    report = add_locomo(memory, path, user_id="ana", sample="conv-1")
    assert report.turns_added == 9 and report.contexts_added == 5 and report.facts_added > 0
    result = memory.search("What is the name of Ana's dog?", user_id="ana")
    assert 0 < len(result.contexts) <= 10
    assert "D1:1" in result.turn_ids
    for hit in result.contexts:
        assert hit.context.text.startswith("DATE: ")
        for anchor in hit.anchors:
            assert anchor.fact.context_id == hit.context.id
    stored = {c.id: c for c in memory.contexts(user_id="ana")}
    assert all(h.context == stored[h.context.id] for h in result.contexts)


def test_re_adding_the_same_turns_creates_nothing(memory: Memory, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    add_locomo(memory, path, user_id="ana", sample="conv-1")
    before = memory.stats(user_id="ana")
    again = add_locomo(memory, path, user_id="ana", sample="conv-1")
    after = memory.stats(user_id="ana")
    assert (again.turns_added, again.contexts_added, again.facts_added, again.events_added) == (0, 0, 0, 0)
    assert (before.contexts, before.facts, before.events, before.turns) == (
        after.contexts,
        after.facts,
        after.events,
        after.turns,
    )


def test_user_scopes_never_leak(memory: Memory) -> None:
    memory.add(messages([("Ana", "My secret pet is a lizard called Zorro.")]), user_id="ana")
    memory.add(messages([("Bo", "I keep bees on my roof in Lyon.")]), user_id="bo")
    memory.add(messages([("Bo", "The agent-only note about kayaks.")]), user_id="bo", agent_id="helper")
    for query in ("lizard Zorro", "bees roof Lyon", "kayaks"):
        ana = memory.search(query, user_id="ana")
        assert all("Zorro" in h.context.text for h in ana.contexts)
        bo = memory.search(query, user_id="bo", include_subscopes=False)
        assert all("Zorro" not in h.context.text and "kayaks" not in h.context.text for h in bo.contexts)
        assert all("Zorro" not in h.context.text for h in memory.search(query, user_id="bo").contexts)
    assert all("kayaks" in f.text for f in memory.facts(user_id="bo", agent_id="helper"))
    assert memory.search("anything", user_id="nobody").contexts == ()


def test_events_are_built_within_one_user_only(memory: Memory) -> None:
    same = "Ana and Bo both adore long walks by the river at dawn."
    memory.add(messages([("Ana", same), ("Ana", same + " Really.")]), user_id="ana")
    memory.add(messages([("Bo", same)]), user_id="bo")
    ana_facts = {f.id for f in memory.facts(user_id="ana")}
    for ev in memory.events(user_id="ana"):
        assert set(ev.fact_ids) <= ana_facts


def test_llm_path_extracts_integrates_and_answers(llm_memory: Memory, fake_llm: FakeLLM, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    report = add_locomo(llm_memory, path, user_id="ana", sample="conv-1")
    facts = llm_memory.facts(user_id="ana")
    assert facts and all(f.source == "llm" for f in facts)
    assert report.extractions_failed == 0 and fake_llm.calls >= 5
    answer = llm_memory.answer("What is the name of Ana's dog?", user_id="ana")
    assert answer.text == "Pico" and answer.cited_turn_ids == ("D1:1",)
    usage = llm_memory.stats(user_id="ana").usage
    assert usage["extraction"].calls == 5 and usage["extraction"].prompt_tokens > 0


def test_dead_endpoint_gives_a_clear_error_and_loses_nothing(settings: Settings, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    dead = FakeLLM(llm_responder, fail_first=10**6)
    with Memory(settings, embedder=HashEmbedder(), llm=dead) as mem, pytest.raises(LLMUnavailableError) as err:
        add_locomo(mem, path, user_id="ana", sample="conv-1")
    assert "run the same add again" in str(err.value)
    alive = FakeLLM(llm_responder)
    with Memory(settings, embedder=HashEmbedder(), llm=alive) as mem:
        assert mem.stats(user_id="ana").turns == 9  # the turns and contexts were kept
        assert mem.stats(user_id="ana").pending_extractions == 5
        report = add_locomo(mem, path, user_id="ana", sample="conv-1")
        assert report.turns_added == 0 and report.facts_added > 0
        stats = mem.stats(user_id="ana")
        assert stats.pending_extractions == 0 and stats.failed_extractions == 0


def test_malformed_llm_output_marks_the_context_failed_then_retries(settings: Settings, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    garbage = FakeLLM(lambda m: "I cannot do that" if "Excerpt:" in m[-1]["content"] else llm_responder(m))
    with Memory(settings, embedder=HashEmbedder(), llm=garbage) as mem:
        report = add_locomo(mem, path, user_id="ana", sample="conv-1")
        assert report.extractions_failed == 5
        assert mem.stats(user_id="ana").failed_extractions == 5
        assert mem.stats(user_id="ana").contexts == 5
    with Memory(settings, embedder=HashEmbedder(), llm=FakeLLM(llm_responder)) as mem:
        report = add_locomo(mem, path, user_id="ana", sample="conv-1")
        assert report.facts_added > 0 and mem.stats(user_id="ana").failed_extractions == 0


def test_precomputed_facts_and_events_attach(memory: Memory, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "conv.json")
    facts = tmp_path / "facts.jsonl"
    facts.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "sample_id": "conv-1",
                    "dia_ids": ["D1:1", "D1:2", "D1:3"],
                    "facts": ["Ana adopted a dog named Pico."],
                },
                {"sample_id": "conv-1", "dia_ids": ["D2:1", "D2:2", "D2:3"], "facts": ["Ben played a cello recital."]},
                {"sample_id": "other", "dia_ids": ["D1:1", "D1:2", "D1:3"], "facts": ["Not this one."]},
            ]
        )
    )
    events = tmp_path / "events.jsonl"
    events.write_text(
        json.dumps(
            {
                "sample_id": "conv-1",
                "event": "Ana adopted Pico while Ben took up the cello.",
                "source_facts": ["Ana adopted a dog named Pico.", "Ben played a cello recital."],
            }
        )
    )
    add_locomo(memory, path, user_id="ana", sample="conv-1", facts=facts, events=events)
    by_source = {f.text: f.source for f in memory.facts(user_id="ana")}
    assert by_source["Ana adopted a dog named Pico."] == "pack"
    assert "Not this one." not in by_source
    assert {s for s in by_source.values()} == {"pack", "offline"}  # contexts without pack facts: offline
    (event,) = memory.events(user_id="ana")
    assert event.source == "pack" and len(event.fact_ids) == 2
    holding = {f.context_id for f in memory.facts(user_id="ana") if f.id in event.fact_ids}
    assert len(holding) == 2  # the two pack facts come from two windows
    result = memory.search("Who adopted Pico?", user_id="ana", max_contexts=1)  # the event adds the other window
    (hit,) = result.events
    assert hit.event.id == event.id and set(hit.context_ids) == holding
    assert {f.text for f in hit.facts} == {"Ana adopted a dog named Pico.", "Ben played a cello recital."}


def test_answer_without_llm_says_how_to_configure(memory: Memory) -> None:
    memory.add(messages(SESSION_1), user_id="ana")
    with pytest.raises(LLMNotConfiguredError, match="ANCHORMEM_LLM_BASE_URL"):
        memory.answer("What is the dog's name?", user_id="ana")


@pytest.mark.parametrize("bad", ["", "   ", "x" * 20_000])
def test_bad_queries_are_rejected(memory: Memory, bad: str) -> None:
    memory.add(messages(SESSION_1), user_id="ana")
    with pytest.raises(InputError):
        memory.search(bad, user_id="ana")


def test_file_with_several_samples_needs_one_picked(memory: Memory, tmp_path: Path) -> None:
    path = write_locomo(tmp_path / "two.json", [locomo_sample("a"), locomo_sample("b")])
    with pytest.raises(InputError, match="holds 2 conversations"):
        memory.add(path, user_id="u")
    reports = add_all(memory, path, user_id="u")
    assert set(reports) == {"a", "b"}
    assert memory.stats(user_id="u", run_id="a").turns == 9


def test_typed_record_accessors(memory: Memory, tmp_path: Path) -> None:
    add_locomo(memory, write_locomo(tmp_path / "conv.json"), user_id="ana", sample="conv-1")
    turns = memory.turns(user_id="ana")
    assert [t.id for t in turns][:3] == ["D1:1", "D1:2", "D1:3"] and len(turns) == 9
    assert memory.records("turns", user_id="ana") == turns
    assert memory.records("contexts", user_id="ana") == memory.contexts(user_id="ana")
    assert memory.records("facts", user_id="ana") == memory.facts(user_id="ana")
    assert memory.records("events", user_id="ana") == memory.events(user_id="ana")
    assert memory.get("D1:2", user_id="ana") == turns[1]
    with pytest.raises(InputError, match="unknown kind"):
        memory.records("sessions", user_id="ana")
    with pytest.raises(NotFoundError):
        memory.turns(user_id="nobody")
    assert not hasattr(memory, "list")  # no method shadowing the builtin


def test_k_caps_the_contexts_unless_max_contexts_is_given(memory: Memory, tmp_path: Path) -> None:
    add_locomo(memory, write_locomo(tmp_path / "conv.json"), user_id="ana", sample="conv-1")
    query = "What did Ana paint for her grandmother?"
    default = memory.search(query, user_id="ana")
    assert len(default.contexts) >= 3  # every window not covered by chosen ones fits under the default 10
    assert memory.search(query, user_id="ana", k=10) == default  # the default k changes nothing
    two = memory.search(query, user_id="ana", k=2)
    assert len(two.contexts) == 2 and len(two.events) <= 2
    wide = memory.search(query, user_id="ana", k=2, max_contexts=10)
    assert [h.context.id for h in wide.contexts] == [h.context.id for h in default.contexts]
    assert len(wide.events) <= 2
    assert len(memory.search(query, user_id="ana", k=1, variant="paper").contexts) == 1


@pytest.fixture
def memory_at(location: str) -> Iterator[Memory]:
    """A Memory on the store of the test's ``location`` (SQLite file or PostgreSQL database)."""
    with Memory(Settings.load(env={}, store=location, embed__backend="hash"), embedder=HashEmbedder()) as mem:
        yield mem


def _assert_empty(result: object, query: str) -> None:
    assert isinstance(result, SearchResult) and result.query == query
    assert result.contexts == () and result.events == () and result.turn_ids == []
    assert result.as_prompt() == ""


@pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)
def test_a_scope_with_no_memory_searches_to_an_empty_result(memory_at: Memory) -> None:
    """An agent's first turn for a new user needs no error handling: the search is just empty."""
    _assert_empty(memory_at.search("What is the dog's name?", user_id="newcomer"), "What is the dog's name?")
    memory_at.add(messages(SESSION_1, "1") + messages(SESSION_2, "2"), user_id="ana")
    assert memory_at.search("dog", user_id="ana").contexts
    _assert_empty(memory_at.search("dog", user_id="ana", agent_id="never-used"), "dog")
    _assert_empty(memory_at.search("dog", user_id="ana", run_id="never-used"), "dog")
    memory_at.delete(user_id="ana", all=True)
    _assert_empty(memory_at.search("dog", user_id="ana"), "dog")
    with pytest.raises(NotFoundError):  # stats of a memory that does not exist stays an error
        memory_at.stats(user_id="newcomer")
    with pytest.raises(InputError):  # the query is still checked
        memory_at.search("  ", user_id="newcomer")


def _counted(memory: Memory, **scope: str) -> tuple[int, ...]:
    """What stats must say, counted from the records themselves."""
    turns = memory.turns(**scope)
    return (
        len(turns),
        len({t.session for t in turns}),
        len(memory.contexts(**scope)),
        len(memory.facts(**scope)),
        len(memory.events(**scope)),
    )


def _stats(memory: Memory, **scope: str) -> tuple[int, ...]:
    s = memory.stats(**scope)
    assert s.pending_extractions == s.failed_extractions == s.ungrounded_facts == 0  # offline: all done
    return (s.turns, s.sessions, s.contexts, s.facts, s.events)


def test_stats_count_what_the_records_hold_after_adds_updates_and_deletes(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    memory.add(messages(SESSION_2, "2"), user_id="ana")
    memory.add(messages(SESSION_2[:2], "3"), user_id="ben")
    assert _stats(memory, user_id="ana") == _counted(memory, user_id="ana")
    assert _stats(memory, user_id="ana")[:2] == (9, 2) and _stats(memory, user_id="ben")[:2] == (2, 1)
    first = memory.turns(user_id="ana")[0]
    memory.update(first.id, "I adopted a cat called Miso.", user_id="ana")
    assert _stats(memory, user_id="ana") == _counted(memory, user_id="ana")
    memory.delete(turn=memory.turns(user_id="ana")[3].id, user_id="ana")
    assert _stats(memory, user_id="ana") == _counted(memory, user_id="ana")
    assert _stats(memory, user_id="ana")[:2] == (8, 2)
    memory.delete(session="2", user_id="ana")
    assert _stats(memory, user_id="ana") == _counted(memory, user_id="ana")
    assert _stats(memory, user_id="ana")[:2] == (4, 1) and _stats(memory, user_id="ben")[:2] == (2, 1)


def test_get_reads_one_record_of_each_kind(memory: Memory) -> None:
    # each says one thing again in a later session: an offline event joins two messages apart
    again = [(who, said.replace(",", ";", 1)) for who, said in (SESSION_1[2], SESSION_2[0])]
    memory.add(messages(SESSION_1, "1") + messages(again[:1], "3", "2024-04-01 10:00"), user_id="ana")
    memory.add(messages(SESSION_2, "2") + messages(again[1:], "3", "2024-04-01 10:00"), user_id="ben")
    for kind in ("turns", "contexts", "facts", "events"):
        records = memory.records(kind, user_id="ana")
        assert records, kind
        assert memory.get(records[-1].id, user_id="ana") == records[-1]
        other = memory.records(kind, user_id="ben")[0]
        with pytest.raises(NotFoundError, match=f"no {kind[:-1]} "):
            memory.get(other.id, user_id="ana")  # another user's record is not found in this memory
    with pytest.raises(NotFoundError):
        memory.get("f-nothing", user_id="ana")
    with pytest.raises(NotFoundError):
        memory.get("D1:1", user_id="nobody")


def test_a_default_search_of_a_long_chat_fills_max_chars_not_ten_windows(memory: Memory) -> None:
    # 40 exchanges of about 600 characters each: every chat window is nearly full, and every one
    # mentions the garden, so more than ten of them are relevant
    turns = []
    for i in range(40):
        text = f"Note {i}: the garden needs watering on day {i}. " + " ".join(f"word{i}x{j}" for j in range(70))
        turns.append({"role": "user" if i % 2 == 0 else "assistant", "content": text[:600]})
    memory.add(turns, user_id="ana")
    wide = memory.search("When does the garden need watering?", user_id="ana")
    narrow = memory.search("When does the garden need watering?", user_id="ana", max_contexts=10)
    wide_chars = sum(len(h.context.text) for h in wide.contexts)
    narrow_chars = sum(len(h.context.text) for h in narrow.contexts)
    assert narrow_chars <= 10 * 700 < wide_chars <= memory.settings.retrieval.max_chars  # type: ignore[operator]
    assert [h.context.id for h in narrow.contexts][:3] == [h.context.id for h in wide.contexts][:3]
    assert len(wide.prompt(max_chars=10_000).turn_ids) > len(narrow.prompt(max_chars=10_000).turn_ids)
