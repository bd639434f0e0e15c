"""Changes the memory knows on the LLM path: event integration records which fact supersedes which, and
``latest``/``earlier`` come from those links (a change, a correction, a delete of the newer statement, a
subject only extended). The LLM's answers are recorded below, keyed by what each excerpt says."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from anchormem.config import Settings
from anchormem.errors import InputError, LLMResponseError
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from anchormem.model import SearchResult
from anchormem.prompts import events as events_prompt
from anchormem.search.rerank.supersession import shows_change
from tests.maya import MOVE, TopicEmbedder, all_sessions, chat, recorded


@contextmanager
def recorded_memory(store: Path, reply: Callable[[list[Any]], str] = recorded) -> Iterator[Memory]:
    """A memory at ``store`` whose LLM answers by ``reply`` (the recorded answers unless said)."""
    settings = Settings.load(env={}, store=str(store), embed__backend="hash")
    with Memory(settings, embedder=TopicEmbedder(), llm=FakeLLM(reply, model="recorded-llm")) as memory:
        yield memory


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with recorded_memory(tmp_path / "mem.db") as memory:
        yield memory


def marks(result: SearchResult) -> dict[str, tuple[bool | None, list[str]]]:
    """Per returned context, by the text Maya said in it: (latest, the texts of the newer contexts)."""
    said = {h.context.id: h.context.text.split('"')[1] for h in result.contexts}
    return {said[h.context.id]: (h.latest, [said[n] for n in h.newer]) for h in result.contexts}


def test_a_change_links_the_newer_fact_to_the_older_and_marks_it(mem: Memory) -> None:
    mem.add(MOVE, user_id="maya")
    [event] = mem.events(user_id="maya")
    facts = {f.text: f.id for f in mem.facts(user_id="maya")}
    assert "moved from Lavapiés to Carabanchel in September 2024" in event.text
    assert event.supersedes == (
        (facts["Maya moved to Carabanchel in September 2024."], facts["Maya lives in Lavapiés."], "change"),
    )
    assert event.source == "llm"
    assert [c.text.split('"')[1] for c in mem.contexts(user_id="maya")] == [m["text"] for m in MOVE]  # untouched
    found = marks(mem.search("Where does Maya live?", user_id="maya"))
    assert found["I live in Lavapiés with my partner."] == (False, ["We finally moved to Carabanchel last week!"])
    assert found["We finally moved to Carabanchel last week!"] == (True, [])


def test_a_search_prefers_the_statement_that_supersedes(mem: Memory) -> None:
    mem.add(all_sessions(), user_id="maya")
    result = mem.search("Where does Maya live?", user_id="maya")
    lifted = {h.context.text.split('"')[1]: dict(h.adjustments).get("recency", 0.0) for h in result.contexts}
    assert lifted["We finally moved to Carabanchel last week!"] == 0.1
    assert lifted["I live in Lavapiés with my partner."] == 0.0
    # the correction links the same two windows: the chess club's day, asked, marks them too
    found = marks(mem.search("When does the chess club meet?", user_id="maya"))
    assert found == {
        "I live in Lavapiés with my partner.": (False, ["We finally moved to Carabanchel last week!"]),
        "We finally moved to Carabanchel last week!": (True, []),
        "I adopted a cat named Pico.": (None, []),
        "Pico turned three today.": (None, []),
    }


def test_a_correction_supersedes_like_a_change(mem: Memory) -> None:
    mem.add(
        chat(
            ("2024-05-01T09:00:00", "My chess club meets on Tuesdays."),
            ("2024-05-01T09:05:00", "Actually it's Thursday, not Tuesday, for the chess club."),
        ),
        user_id="maya",
    )
    [event] = mem.events(user_id="maya")
    assert [link[2] for link in event.supersedes] == ["correction"]
    found = marks(mem.search("When does the chess club meet?", user_id="maya"))
    assert found["My chess club meets on Tuesdays."] == (
        False,
        ["Actually it's Thursday, not Tuesday, for the chess club."],
    )
    assert found["Actually it's Thursday, not Tuesday, for the chess club."] == (True, [])


def test_deleting_the_newer_statement_makes_the_older_current(mem: Memory) -> None:
    mem.add(MOVE, user_id="maya")
    assert mem.search("Where does Maya live?", user_id="maya").contexts[0].latest is not None
    mem.delete(session="2", user_id="maya")
    assert all(not e.supersedes for e in mem.events(user_id="maya"))
    found = marks(mem.search("Where does Maya live?", user_id="maya"))
    assert found == {"I live in Lavapiés with my partner.": (None, [])}
    # the change said again links again
    mem.add(
        [{"speaker": "Maya", "text": "We finally moved to Carabanchel last week!", "session": "3",
          "timestamp": "2024-10-01T08:00:00"}],
        user_id="maya",
    )  # fmt: skip
    found = marks(mem.search("Where does Maya live?", user_id="maya"))
    assert found["I live in Lavapiés with my partner."][0] is False


def test_a_subject_only_extended_is_not_superseded(tmp_path: Path, mem: Memory) -> None:
    said = chat(
        ("2024-06-01T12:00:00", "I adopted a cat named Pico."),
        ("2024-10-03T12:00:00", "Pico turned three today."),
    )
    mem.add(said, user_id="maya")
    [event] = mem.events(user_id="maya")
    assert event.supersedes == ()
    found = marks(mem.search("Tell me about Maya's cat", user_id="maya"))
    assert len(found) == 2 and all(v == (None, []) for v in found.values())
    # the offline path, which cannot know, leaves marks out: by date they were measured too often wrong
    offline = Settings.load(env={}, store=str(tmp_path / "offline.db"), embed__backend="hash")
    with Memory(offline, embedder=TopicEmbedder()) as plain:
        plain.add(said, user_id="maya")
        dated = marks(plain.search("Tell me about Maya's cat", user_id="maya"))
    assert dated["I adopted a cat named Pico."][0] is None


def test_links_survive_reopening_and_export_import(mem: Memory, tmp_path: Path) -> None:
    mem.add(MOVE, user_id="maya")
    [event] = mem.events(user_id="maya")
    records = list(mem.export(user_id="maya"))
    [exported] = [r for r in records if r["type"] == "event"]
    assert exported["supersedes"] == [list(link) for link in event.supersedes]
    other = Settings.load(env={}, store=str(tmp_path / "copy.db"), embed__backend="hash")
    with Memory(other, embedder=TopicEmbedder()) as copy:
        copy.import_records(json.loads(json.dumps(r)) for r in records)
        assert copy.events(user_id="maya") == [event]
        assert copy.get(event.id, user_id="maya") == event
    with Memory(mem.settings, embedder=TopicEmbedder()) as reopened:
        assert reopened.events(user_id="maya") == [event]


def test_an_import_refuses_a_link_to_a_fact_outside_its_event(mem: Memory, tmp_path: Path) -> None:
    mem.add(MOVE, user_id="maya")
    records = list(mem.export(user_id="maya"))
    for r in records:
        if r["type"] == "event":
            r["supersedes"] = [["f-0000000000000000", r["fact_ids"][0], "change"]]
    other = Settings.load(env={}, store=str(tmp_path / "copy.db"), embed__backend="hash")
    with Memory(other, embedder=TopicEmbedder()) as copy, pytest.raises(InputError, match="supersedes"):
        copy.import_records(records)


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ('{"event": "x", "changes": [{"newer": 3, "older": 1, "kind": "change"}]}', "excerpt 3 of 2"),
        ('{"event": "x", "changes": [{"newer": 1, "older": 1, "kind": "change"}]}', "two different"),
        ('{"event": "x", "changes": [{"newer": 2, "older": 1, "kind": "rumour"}]}', "kind"),
        ('{"event": "x", "changes": [{"newer": 1, "older": 2, "kind": "change"}]}', "dated before"),
        ('{"event": "x", "changes": "yes"}', "must be a list"),
    ],
)
def test_a_change_the_excerpts_cannot_hold_is_refused(answer: str, why: str) -> None:
    with pytest.raises(LLMResponseError, match=why):
        events_prompt.read(answer, count=2, dates=[datetime(2024, 3, 2), datetime(2024, 9, 20)])


def test_an_answer_without_changes_reads_as_before() -> None:
    assert events_prompt.read('{"event": "Maya has a cat."}', count=2) == events_prompt.Integration("Maya has a cat.")
    assert "changes" in events_prompt.build([('DATE: 1 May, 2024\nMaya said, "hi"', "Maya said hi.")])[-1]["content"]


def test_mcp_langchain_and_the_prompt_carry_the_marks_and_links(mem: Memory) -> None:
    import asyncio

    from mcp import Client

    from anchormem.integrations.langchain import to_documents
    from anchormem.server.mcp import build_server

    mem.add(MOVE, user_id="maya")
    [event] = mem.events(user_id="maya")

    async def search() -> dict[str, Any]:
        async with Client(build_server(mem, user_id="maya")) as client:
            result = await client.call_tool("search_memory", {"query": "Where does Maya live?"})
            assert result.structured_content is not None
            return dict(result.structured_content)

    found = asyncio.run(search())
    marks_by_id = {c["id"]: (c["latest"], c["newer"]) for c in found["contexts"]}
    expected = {
        h.context.id: (h.latest, list(h.newer)) for h in mem.search("Where does Maya live?", user_id="maya").contexts
    }
    assert marks_by_id == expected and sorted(m[0] for m in expected.values()) == [False, True]
    assert [e["supersedes"] for e in found["events"]] == [[list(link) for link in event.supersedes]]
    assert "[earlier]" in found["memories"] and "[latest]" in found["memories"]
    docs = to_documents(mem.search("Where does Maya live?", user_id="maya"), scope={"user_id": "maya"})
    assert {d.metadata.get("latest") for d in docs if d.metadata["kind"] == "context"} == {True, False}
    assert [d.metadata["supersedes"] for d in docs if d.metadata["kind"] == "event"] == [
        [list(link) for link in event.supersedes]
    ]


def test_rest_carries_the_marks_and_links(mem: Memory) -> None:
    from fastapi.testclient import TestClient

    from anchormem.server.app import create_app
    from anchormem.server.keys import KeyRing

    mem.add(MOVE, user_id="maya")
    [event] = mem.events(user_id="maya")
    with TestClient(create_app(mem, KeyRing.from_raw({"k": ["maya"]}), warm=False)) as client:
        found = client.post(
            "/v1/users/maya/search", json={"query": "Where does Maya live?"}, headers={"X-API-Key": "k"}
        )
        body = found.json()
        got = client.get(f"/v1/users/maya/records/{event.id}", headers={"X-API-Key": "k"}).json()
    expected = mem.search("Where does Maya live?", user_id="maya")
    assert [(c["latest"], c["newer"]) for c in body["contexts"]] == [
        (h.latest, list(h.newer)) for h in expected.contexts
    ]
    assert [e["event"]["supersedes"] for e in body["events"]] == [[list(link) for link in event.supersedes]]
    assert got["supersedes"] == [list(link) for link in event.supersedes]


def test_change_probes_find_a_move_told_in_other_words(tmp_path: Path) -> None:
    """With MiniLM a move ("lives in Lavapiés" / "moved to Carabanchel", 0.60) stays below the event graph's
    tau (0.85): no cluster asks about it. ``graph.change_tau`` pairs each new fact with its nearest fact of
    another context below tau; the pair's event is kept only when the model lists a change."""
    loose = TopicEmbedder(hash_weight=0.8)
    said = ["Maya lives in Lavapiés.", "Maya moved to Carabanchel in September 2024."]
    vectors = loose.embed(said)
    assert 0.5 < float(vectors[0] @ vectors[1]) < 0.85
    plain = Settings.load(env={}, store=str(tmp_path / "plain.db"), embed__backend="hash")
    with Memory(plain, embedder=loose, llm=FakeLLM(recorded, model="recorded-llm")) as mem:
        mem.add(all_sessions(), user_id="maya")
        assert not any("Carabanchel" in e.text for e in mem.events(user_id="maya"))  # the paper's graph alone
    probing = Settings.load(env={}, store=str(tmp_path / "probe.db"), embed__backend="hash", graph__change_tau=0.5)
    llm = FakeLLM(recorded, model="recorded-llm")
    with Memory(probing, embedder=loose, llm=llm) as mem:
        mem.add(all_sessions(), user_id="maya")
        facts = {f.id: f.text for f in mem.facts(user_id="maya")}
        links = {(facts[a], facts[b], kind) for e in mem.events(user_id="maya") for a, b, kind in e.supersedes}
        assert ("Maya moved to Carabanchel in September 2024.", "Maya lives in Lavapiés.", "change") in links
        cat = {"Maya has a cat named Pico.", "Maya's cat Pico turned three."}
        assert not any({facts[f] for f in e.fact_ids} == cat for e in mem.events(user_id="maya"))  # asked, no change
        asked = [r[-1]["content"] for r in llm.requests if "Key fact:" in r[-1]["content"]]
        assert any("Key fact: <fact>Maya's cat Pico turned three.</fact>" in q for q in asked)  # the cat pair was asked
        found = marks(mem.search("Where does Maya live?", user_id="maya"))
        assert found["I live in Lavapiés with my partner."] == (False, ["We finally moved to Carabanchel last week!"])
        calls = llm.calls
        mem.add(all_sessions(), user_id="maya")  # nothing new: no fact to probe around, no call
        assert llm.calls == calls


# a restatement the model listed as a change (as it did for 9 of its 16 links on a dev set): the same club, day and
# place said again in other words; and a real change with a value on each side
RESTATED = {
    "meets at the Ateneo": ["Maya's chess club meets at the Ateneo on Tuesdays."],
    "still at the Ateneo": ["Maya's chess club still meets on Tuesdays at the Ateneo."],
}
RESTATED_EVENT = (
    "Maya's chess club meets at the Ateneo on Tuesdays, as she said again later.",
    ("Maya's chess club still meets on Tuesdays at the Ateneo.", "Maya's chess club meets at the Ateneo on Tuesdays."),
)


def _restating(messages: list[Any]) -> str:
    content = messages[-1]["content"]
    if "Key fact:" not in content:
        excerpt = content.rsplit("Excerpt:", 1)[-1]
        found = [fact for phrase, facts in RESTATED.items() if phrase in excerpt for fact in facts]
        return json.dumps(found) if found else recorded(messages)
    newer, older = RESTATED_EVENT[1]
    keys = [line.split("<fact>")[1].split("</fact>")[0] for line in content.splitlines() if "<fact>" in line]
    if set(keys) != {newer, older}:
        return recorded(messages)
    number = {f: i for i, f in enumerate(keys, 1)}
    changes = [{"newer": number[newer], "older": number[older], "kind": "change"}]
    return json.dumps({"event": RESTATED_EVENT[0], "changes": changes})


def test_a_link_between_two_wordings_of_one_value_gives_no_mark(tmp_path: Path) -> None:
    said = chat(
        ("2024-05-01T09:00:00", "My chess club meets at the Ateneo on Tuesdays."),
        ("2024-09-20T18:00:00", "The club is still at the Ateneo on Tuesdays, with more players now."),
    )
    with recorded_memory(tmp_path / "restated.db", _restating) as memory:
        memory.add(said, user_id="maya")
        [event] = memory.events(user_id="maya")
        facts = {f.id: f.text for f in memory.facts(user_id="maya")}
        assert [(facts[a], facts[b], kind) for a, b, kind in event.supersedes] == [(*RESTATED_EVENT[1], "change")]
        result = memory.search("When does the chess club meet?", user_id="maya")
        assert len(result.contexts) == 2
        assert all(h.latest is None and not h.newer for h in result.contexts)  # the link stays, unread
        assert all(dict(h.adjustments).get("recency", 0.0) == 0.0 for h in result.contexts)


CORRECTED = "Maya's chess club meets on Thursdays, not Tuesdays."


@pytest.mark.parametrize(
    ("newer", "older", "kind", "shown"),
    [
        ("Maya moved to Carabanchel in September 2024.", "Maya lives in Lavapiés.", "change", True),
        ("The user takes atorvastatin 40 mg.", "The user takes atorvastatin 20 mg.", "change", True),
        (CORRECTED, "Maya's chess club meets on Tuesdays.", "correction", True),
        (CORRECTED, "Maya's chess club meets on Tuesdays.", "change", False),
        ("Elaine's full name is Elaine Pritchard.", "Elaine's full name is Mrs Elaine Pritchard.", "change", False),
        ("The user still has the ACS paper to write.", "The user has the ACS paper to write.", "change", False),
        ("Maya's cat Pico turned three.", "Maya has a cat named Pico.", "change", False),
    ],
)
def test_a_link_is_read_where_each_fact_holds_a_value_the_other_lacks(
    newer: str, older: str, kind: str, shown: bool
) -> None:
    assert shows_change(newer, older, kind) is shown


def _with_work(messages: list[Any]) -> str:
    content = messages[-1]["content"]
    if "Key fact:" in content or "at the Prado" not in content.rsplit("Excerpt:", 1)[-1]:
        return recorded(messages)
    return json.dumps(["Maya lives in Lavapiés.", "Maya works as a guide at the Prado."])


def test_a_context_is_earlier_only_for_the_fact_that_was_replaced(tmp_path: Path) -> None:
    said = chat(
        ("2024-03-02T10:00:00", "I live in Lavapiés and I work as a guide at the Prado."),
        ("2024-09-20T18:00:00", "We finally moved to Carabanchel last week!"),
    )
    with recorded_memory(tmp_path / "work.db", _with_work) as memory:
        memory.add(said, user_id="maya")
        assert any(e.supersedes for e in memory.events(user_id="maya"))
        home = marks(memory.search("Where does Maya live?", user_id="maya"))
        assert home[said[0]["text"]] == (False, [said[1]["text"]])
        # asked about her work, the older context answers with a fact nothing replaced: no mark
        work = marks(memory.search("What does Maya do at the Prado?", user_id="maya"))
        assert work[said[0]["text"]] == (None, [])


def test_a_later_statement_no_link_covers_keeps_the_linked_one_from_latest(tmp_path: Path) -> None:
    """Lavapiés -> Carabanchel is linked; a later move to Getafe, integrated with nothing it replaces, is not: the
    Carabanchel context is then neither marked ``latest`` nor raised, while Lavapiés stays ``earlier``."""

    def reply(messages: list[Any]) -> str:
        content = messages[-1]["content"]
        if "Key fact:" not in content and "moved again" in content.rsplit("Excerpt:", 1)[-1]:
            return json.dumps(["Maya moved to Getafe in March 2025."])
        return recorded(messages)

    with recorded_memory(tmp_path / "mem.db", reply) as memory:
        memory.add(MOVE, user_id="maya")
        memory.add(
            [{"speaker": "Maya", "text": "We moved again, to a bigger flat in Getafe.", "session": "3",
              "timestamp": "2025-03-10T08:00:00"}],
            user_id="maya",
        )  # fmt: skip
        result = memory.search("Where does Maya live?", user_id="maya")
    found = marks(result)
    assert found["I live in Lavapiés with my partner."][0] is False, "the replaced statement is still earlier"
    assert found["We finally moved to Carabanchel last week!"] == (None, []), "not latest: Getafe came later"
    lifted = {h.context.text.split('"')[1]: dict(h.adjustments).get("recency", 0.0) for h in result.contexts}
    assert lifted["We finally moved to Carabanchel last week!"] == 0.0
