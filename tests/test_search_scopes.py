"""Nested scopes and search filters, on SQLite and PostgreSQL: a user's search covers its agents and
runs (unless asked not to), an agent alone is a scope, and filters on metadata, session and message time
restrict what a search returns."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, NotFoundError
from anchormem.memory import Memory
from anchormem.model import Scope, SearchResult

pytestmark = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def mem(location: str, tmp_path: Path) -> Iterator[Memory]:
    settings = Settings.load(env={}, store=location, cache=str(tmp_path / "cache.db"), embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as memory:
        yield memory


def say(text: str, session: str = "1", **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": text, "session": session, **extra}


def texts(result: SearchResult) -> str:
    return "\n".join(h.context.text for h in result.contexts)


def scopes(result: SearchResult) -> set[Scope | None]:
    return {h.scope for h in result.contexts}


ANA, COACH, RUN = Scope("ana"), Scope("ana", "coach"), Scope("ana", "coach", "r1")


@pytest.fixture
def nested(mem: Memory) -> Memory:
    mem.add([say("Ana keeps a lizard called Zorro.")], user_id="ana")
    mem.add([say("The coach noted that Ana trains for a marathon.")], user_id="ana", agent_id="coach")
    mem.add([say("In run one Ana ran ten kilometres.")], user_id="ana", agent_id="coach", run_id="r1")
    mem.add([say("Bo's coach noted a marathon too.")], user_id="bo", agent_id="coach")
    return mem


QUERY = "Zorro lizard marathon coach run kilometres"


def test_a_user_search_covers_its_agents_and_runs(nested: Memory) -> None:
    result = nested.search(QUERY, user_id="ana")
    assert scopes(result) == {ANA, COACH, RUN}
    assert "Zorro" in texts(result) and "marathon" in texts(result) and "ten kilometres" in texts(result)
    assert "Bo's" not in texts(result)
    for hit in result.contexts:  # each hit names the scope it is stored in
        assert hit.scope is not None and hit.context in nested.contexts(
            user_id=hit.scope.user_id, agent_id=hit.scope.agent_id, run_id=hit.scope.run_id
        )


def test_an_agent_search_covers_its_runs_and_opting_out_narrows(nested: Memory) -> None:
    assert scopes(nested.search(QUERY, user_id="ana", agent_id="coach")) == {COACH, RUN}
    assert scopes(nested.search(QUERY, user_id="ana", include_subscopes=False)) == {ANA}
    assert scopes(nested.search(QUERY, user_id="ana", agent_id="coach", include_subscopes=False)) == {COACH}
    assert scopes(nested.search(QUERY, user_id="ana", agent_id="coach", run_id="r1")) == {RUN}


def test_a_user_search_sees_what_a_sub_scope_gains_later(nested: Memory) -> None:
    assert "otters" not in texts(nested.search("otters river", user_id="ana"))
    nested.add([say("In run two Ana watched otters by the river.")], user_id="ana", agent_id="coach", run_id="r2")
    result = nested.search("otters river", user_id="ana")
    assert "otters" in texts(result) and Scope("ana", "coach", "r2") in scopes(result)


def test_turn_ids_repeating_across_runs_are_kept_apart(mem: Memory) -> None:
    """Every run has a turn "t1": a merged search must not take one run's turn as covering another's."""
    for run, pet in (("r1", "parrot"), ("r2", "hamster")):
        mem.add([say(f"My pet {pet} sings loudly at dawn.", id="t1")], user_id="ana", run_id=run)
    result = mem.search("pet sings loudly at dawn", user_id="ana")
    assert scopes(result) == {Scope("ana", None, "r1"), Scope("ana", None, "r2")}
    assert "parrot" in texts(result) and "hamster" in texts(result)
    prompt = result.as_prompt()  # windows of two runs are two spans, each saying its run
    assert "parrot" in prompt and "hamster" in prompt
    assert "· user ana / run r1" in prompt and "· user ana / run r2" in prompt


def test_an_agent_alone_is_a_scope(mem: Memory) -> None:
    mem.add([say("The helper agent learned the office wifi password rotates monthly.")], agent_id="helper")
    mem.add([say("Ana has a red bicycle.")], user_id="ana")
    result = mem.search("wifi password office", agent_id="helper")
    assert "wifi" in texts(result) and scopes(result) == {Scope("", "helper")}
    assert "wifi" not in texts(mem.search("wifi password office", user_id="ana"))
    assert [t.text for t in mem.turns(agent_id="helper")] == [
        "The helper agent learned the office wifi password rotates monthly."
    ]
    assert mem.stats(agent_id="helper").turns == 1
    assert mem.delete(agent_id="helper", all=True).turns == 1
    assert mem.search("wifi password office", agent_id="helper").contexts == ()
    with pytest.raises(InputError, match="user_id or agent_id is required"):
        mem.search("wifi")
    with pytest.raises(InputError, match="user_id or agent_id is required"):
        mem.add([say("hello")])


def test_what_is_missing_from_an_agent_memory_names_the_agent(mem: Memory) -> None:
    mem.add([say("The helper agent learned the office wifi password rotates monthly.")], agent_id="helper")
    for missing in ({"turn": "t-none"}, {"session": "9"}, {"context": "c-none"}):
        with pytest.raises(NotFoundError, match="in the memory of agent 'helper'"):
            mem.delete(agent_id="helper", **missing)
    with pytest.raises(NotFoundError, match="in the memory of agent 'helper'"):
        mem.update("t-none", "new words", agent_id="helper")
    with pytest.raises(NotFoundError, match="no memory for agent 'planner'"):
        mem.delete(agent_id="planner", all=True)


def test_unknown_scopes_give_an_empty_result(nested: Memory) -> None:
    for scope in ({"user_id": "nobody"}, {"agent_id": "nobody"}, {"user_id": "ana", "agent_id": "nobody"}):
        result = nested.search(QUERY, **scope)
        assert result.contexts == () and result.events == ()
    assert nested.search(QUERY, user_id="nobody", filters={"topic": "x"}, since="2024-01-01").contexts == ()


# -- filters --------------------------------------------------------------------------------------


@pytest.fixture
def diary(mem: Memory) -> Memory:
    """One message per session (so one context each), with metadata and times."""
    mem.add(
        [
            say("We planned the quarterly budget review.", "1", metadata={"topic": "work"}, created_at=1704103200),
            say("I bought climbing shoes for the weekend.", "2", metadata={"topic": "sport"}, created_at=1709280000),
            say(
                "The budget for the climbing trip is tight.",
                "3",
                metadata={"topic": "sport", "priority": 2},
                created_at="2024-06-01T09:00:00Z",
            ),
            say("Budget notes without a time or topic.", "4"),
        ],
        user_id="ana",
    )
    return mem


Q = "budget climbing shoes notes"


def _sessions(result: SearchResult) -> set[str]:
    return {h.context.session for h in result.contexts}


def test_no_filter_returns_every_session(diary: Memory) -> None:
    assert _sessions(diary.search(Q, user_id="ana")) == {"1", "2", "3", "4"}


def test_metadata_filters_need_every_pair(diary: Memory) -> None:
    assert _sessions(diary.search(Q, user_id="ana", filters={"topic": "sport"})) == {"2", "3"}
    assert _sessions(diary.search(Q, user_id="ana", filters={"topic": "sport", "priority": 2})) == {"3"}
    assert _sessions(diary.search(Q, user_id="ana", filters={"priority": 2.0})) == {"3"}  # 2 == 2.0
    assert diary.search(Q, user_id="ana", filters={"topic": "sport", "priority": 3}).contexts == ()
    assert diary.search(Q, user_id="ana", filters={"no_such_key": "x"}).contexts == ()
    assert diary.search(Q, user_id="ana", filters={"priority": True}).contexts == ()  # true is not 2 (nor 1)


def test_session_filter(diary: Memory) -> None:
    assert _sessions(diary.search(Q, user_id="ana", session="2")) == {"2"}
    assert diary.search(Q, user_id="ana", session="9").contexts == ()


def test_time_range_is_inclusive_and_drops_unknown_times(diary: Memory) -> None:
    # session 1 at 2024-01-01 10:00 UTC, session 2 at 2024-03-01 08:00 UTC, session 3 at 2024-06-01 09:00 UTC
    assert _sessions(diary.search(Q, user_id="ana", since="2024-03-01T08:00:00Z")) == {"2", "3"}
    assert _sessions(diary.search(Q, user_id="ana", until=1709280000)) == {"1", "2"}
    assert _sessions(diary.search(Q, user_id="ana", since=1709280000, until="2024-03-01T08:00:00Z")) == {"2"}
    assert _sessions(diary.search(Q, user_id="ana", since=datetime(2023, 1, 1))) == {"1", "2", "3"}
    assert diary.search(Q, user_id="ana", since="2030-01-01").contexts == ()


def test_filters_combine(diary: Memory) -> None:
    assert _sessions(diary.search(Q, user_id="ana", filters={"topic": "sport"}, since="2024-04-01")) == {"3"}
    assert _sessions(diary.search(Q, user_id="ana", filters={"topic": "sport"}, session="2")) == {"2"}
    assert diary.search(Q, user_id="ana", filters={"topic": "work"}, session="2").contexts == ()
    for variant in ("paper", "bm25", "no-events"):  # every recipe honours them
        result = diary.search(Q, user_id="ana", filters={"topic": "sport"}, until="2024-04-01", variant=variant)
        assert _sessions(result) <= {"2"}


def test_async_memory_takes_sub_scopes_and_filters(nested: Memory) -> None:
    from anchormem.aio import AsyncMemory

    async def run() -> tuple[SearchResult, SearchResult]:
        amem = AsyncMemory.wrap(nested)
        return (
            await amem.search(QUERY, user_id="ana", include_subscopes=False),
            await amem.search(QUERY, user_id="ana", filters={"none": 1}),
        )

    exact, filtered = asyncio.run(run())
    assert scopes(exact) == {ANA} and filtered.contexts == ()


def test_a_window_passes_when_one_of_its_turns_matches(mem: Memory) -> None:
    mem.add(
        [
            say("Our cat Pixel sleeps all day.", metadata={"topic": "pets"}),
            say("Pixel also hates the vacuum cleaner."),
        ],
        user_id="ana",
    )
    result = mem.search("Pixel vacuum cleaner", user_id="ana", filters={"topic": "pets"})
    assert result.contexts and "vacuum cleaner" in texts(result)  # the window holds both turns


def test_filters_work_across_sub_scopes(nested: Memory) -> None:
    nested.add([say("Run three was about swimming.", metadata={"kind": "log"})], user_id="ana", run_id="r3")
    result = nested.search("swimming run", user_id="ana", filters={"kind": "log"})
    assert scopes(result) == {Scope("ana", None, "r3")}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"filters": ["topic"]}, "filters"),
        ({"filters": {"topic": object()}}, "filters"),
        ({"filters": {"topic": float("nan")}}, "filters"),
        ({"session": 3}, "session"),
        ({"since": "not a time at all"}, "since"),
        ({"until": True}, "until"),
        ({"since": "2024-05-01", "until": "2024-01-01"}, "since"),
    ],
)
def test_bad_filters_name_the_field(diary: Memory, kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError, match=field):
        diary.search(Q, user_id="ana", **kwargs)


def test_an_agent_memory_exports_and_imports(mem: Memory, tmp_path: Path) -> None:
    mem.add([say("The helper agent keeps a list of recipes.")], agent_id="helper")
    records = list(mem.export(agent_id="helper"))
    assert records[1] == {"type": "scope", "user_id": "", "agent_id": "helper", "run_id": None}
    settings = Settings.load(env={}, store=str(tmp_path / "copy.db"), embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as copy:
        assert copy.import_records(records).turns == 1
        assert "recipes" in texts(copy.search("recipes", agent_id="helper"))
