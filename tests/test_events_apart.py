"""Offline events that are events: an extractive event joins facts of contexts that share no message, and
the block says what its events are (hand-made chat, offline path)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.ingest.integrate import joins_apart
from anchormem.ingest.link import Cluster
from anchormem.ingest.sources import parse_locomo
from anchormem.memory import Memory
from anchormem.model import Context, ContextHit, Event, EventHit, Fact, SearchResult

PORTO = "My sister Ana lives in Porto now, right by the river."
ALPS = "I adore hiking in the Alps every single summer."


def dialogue() -> dict[str, object]:
    """LoCoMo's layout: windows of three turns every two, so the third turn of a session is in two windows."""
    s1 = [
        ("Mia", "Hi Leo, how was your week at the bakery?"),
        ("Leo", "Busy, we sold out of rye bread twice."),
        ("Mia", PORTO),  # shared by the windows D1:1-3 and D1:3-5
        ("Leo", "Porto is lovely, the tiles everywhere."),
        ("Mia", ALPS),
        ("Leo", "Which trail do you like most?"),
    ]
    s2 = [
        ("Leo", "Back from the coast, sunburnt."),
        ("Mia", "I adore hiking in the Alps every single summer!"),  # the same fact, another message
        ("Leo", "Then we should plan a trip."),
    ]
    conversation: dict[str, object] = {"speaker_a": "Mia", "speaker_b": "Leo"}
    for n, (date, turns) in enumerate([("8 May, 2023", s1), ("20 June, 2023", s2)], 1):
        conversation[f"session_{n}_date_time"] = f"1:00 pm on {date}"
        conversation[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text} for i, (who, text) in enumerate(turns, 1)
        ]
    return {"sample_id": "apart", "conversation": conversation, "qa": []}


@pytest.fixture
def chat(settings: Settings) -> Iterator[Memory]:
    memory = Memory(settings, embedder=HashEmbedder(dim=1024))
    memory.add(parse_locomo([dialogue()])[0], user_id="u")
    yield memory
    memory.close()


def test_an_offline_event_joins_contexts_that_share_no_message(chat: Memory) -> None:
    contexts = {c.id: c for c in chat.contexts(user_id="u")}
    facts = {f.id: f for f in chat.facts(user_id="u")}
    events = chat.events(user_id="u")
    assert events, "the Alps said in two sessions is an event"
    for event in events:
        members = [contexts[facts[f].context_id] for f in event.fact_ids]
        assert any(not set(a.turn_ids) & set(b.turn_ids) for i, a in enumerate(members) for b in members[i + 1 :]), (
            f"{event.text!r} joins contexts that share no message"
        )
        assert event.text.count("Porto now") <= 1
    assert not any("Porto now" in e.text and "Alps" not in e.text for e in events), "one sentence in two windows"
    assert any(
        "Alps" in e.text and "D2" in "".join(contexts[facts[f].context_id].turn_ids[0] for f in e.fact_ids)
        for e in events
    )


def test_the_rule_reads_messages_not_windows() -> None:
    a = Context("a", "1", 0, ("D1:1", "D1:2", "D1:3"), None, "")
    b = Context("b", "1", 1, ("D1:3", "D1:4", "D1:5"), None, "")
    c = Context("c", "2", 0, ("D2:1",), None, "")
    facts = {
        "f1": Fact("f1", "a", "Mia: My sister lives in Porto.", "offline"),
        "f2": Fact("f2", "b", "Mia: My sister lives in Porto.", "offline"),
        "f3": Fact("f3", "b", "Mia: Porto has tiles.", "offline"),
        "f4": Fact("f4", "c", "Mia: My sister lives in Porto still.", "offline"),
    }
    contexts = {x.id: x for x in (a, b, c)}

    def cluster(*ids: str) -> Cluster:
        return Cluster(ids[0], ids, tuple((facts[i].context_id, i) for i in ids))

    assert not joins_apart(cluster("f1", "f2"), facts, contexts), "one sentence of a shared message"
    assert not joins_apart(cluster("f1", "f3"), facts, contexts), "two windows that share a message"
    assert joins_apart(cluster("f1", "f4"), facts, contexts), "two messages in two sessions"


def block_with(*events: EventHit) -> str:
    context = Context("c1", "1", 0, ("D1:1",), "8 May, 2023", 'DATE: 8 May, 2023\nMia said, "I adore hiking."')
    return SearchResult("hiking?", (ContextHit(context, 0.9, rank=1),), events).as_prompt()


def test_the_events_heading_says_what_they_are_and_across_sessions_only_when_they_are() -> None:
    said = Event("e1", "Mia: I adore hiking in the Alps.", ("f1", "f4"), source="extractive")
    one = EventHit(said, 0.8, ("a", "b"), sessions=("1",))
    two = EventHit(said, 0.8, ("a", "c"), sessions=("1", "2"))
    summary = EventHit(
        Event("e2", "Mia hikes in the Alps every summer.", ("f1",), source="llm"), 0.7, sessions=("1", "2")
    )
    assert "Events (related statements from other messages):" in block_with(one)
    assert "Events (related statements from other messages across sessions):" in block_with(two)
    assert "Events (summaries of related messages across sessions):" in block_with(summary)
    assert "Events (summaries of related messages):" in block_with(EventHit(summary.event, 0.7, sessions=("1",)))
    assert "across sessions" not in block_with(two, one)
