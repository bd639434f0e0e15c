"""Extractive (no-LLM) events say each sentence once, also through a real offline ingest."""

from __future__ import annotations

from anchormem.ingest.integrate import extractive_event
from anchormem.ingest.link import Cluster
from anchormem.memory import Memory
from anchormem.model import Fact


def test_a_sentence_shared_by_overlapping_windows_appears_once() -> None:
    facts = {
        "f1": Fact("f1", "c1", "user: Take-home is about $4,800 a month."),
        "f2": Fact("f2", "c2", "user:  Take-home is about $4,800 a month. "),
        "f3": Fact("f3", "c2", "user: Rent is $1,900."),
    }
    cluster = Cluster(seed_id="f1", fact_ids=("f1", "f2", "f3"), pairs=(("c1", "f1"), ("c2", "f2"), ("c2", "f3")))
    event = extractive_event(cluster, facts)
    assert event.text == "user: Take-home is about $4,800 a month. user: Rent is $1,900."
    assert event.fact_ids == ("f1", "f2", "f3"), "provenance keeps every source fact"


def test_offline_events_never_repeat_a_sentence(memory: Memory) -> None:
    said = "Take-home is about $4,800 a month."
    turns = [
        {"speaker": "user", "text": "I got the new job offer today.", "session": "1"},
        {"speaker": "assistant", "text": "Congratulations on the offer!", "session": "1"},
        {"speaker": "user", "text": said, "session": "1"},
        {"speaker": "assistant", "text": "Take-home of $4,800 a month is solid.", "session": "1"},
        {"speaker": "user", "text": "Rent is $1,900 a month.", "session": "1"},
        {"speaker": "user", "text": "My take-home is about $4,800 a month now.", "session": "2"},
        {"speaker": "assistant", "text": "Noted, $4,800 a month.", "session": "2"},
    ]
    memory.add(turns, user_id="u")
    events = memory.events(user_id="u")
    facts_of = {f.id: f.text for f in memory.facts(user_id="u")}
    repeated = [e for e in events if len({facts_of[i] for i in e.fact_ids}) < len(e.fact_ids)]
    assert repeated, "a turn shared by two windows gives two facts of the same text in one cluster"
    for event in events:
        facts = [f for f in memory.facts(user_id="u") if f.id in event.fact_ids]
        sentences = [f.text for f in facts]
        for text in set(sentences):
            assert event.text.count(text) <= 1, event.text
