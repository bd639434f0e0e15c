"""JSON back to library results: the inverse of ``serialize.to_jsonable`` for every result type."""

from __future__ import annotations

import json
from typing import Any

import pytest

from anchormem.errors import InputError
from anchormem.memory import Memory
from anchormem.model import (
    Context,
    DeleteReport,
    Event,
    Fact,
    HistoryEntry,
    IngestReport,
    Scope,
    SearchResult,
    Stats,
    Turn,
)
from anchormem.wire.deserialize import from_jsonable, record_type
from anchormem.wire.serialize import to_jsonable
from tests.fixtures import SESSION_1, SESSION_2, messages


def roundtrip(value: Any, kind: Any) -> Any:
    return from_jsonable(kind, json.loads(json.dumps(to_jsonable(value))))


def test_every_result_survives_json(memory: Memory) -> None:
    added = memory.add(messages(SESSION_1, session="1"), user_id="u")
    memory.add(messages(SESSION_2, session="2"), user_id="u")
    again = [("Ana", "I am painting a portrait of Pico for my grandmother!")]  # said again: an offline event
    memory.add(messages(again, session="3"), user_id="u")
    assert roundtrip(added, IngestReport) == added
    result = memory.search("Pico's portrait", user_id="u", max_contexts=1)  # events add to one context
    assert result.contexts and result.events
    assert roundtrip(result, SearchResult) == result
    for kind, records in (
        (Turn, memory.turns(user_id="u")),
        (Context, memory.contexts(user_id="u")),
        (Fact, memory.facts(user_id="u")),
        (Event, memory.events(user_id="u")),
    ):
        assert roundtrip(records, list[kind]) == records
        assert all(record_type(r.id) is kind for r in records)
    stats = memory.stats(user_id="u")
    assert roundtrip(stats, Stats) == stats
    assert roundtrip(memory.history(user_id="u"), list[HistoryEntry]) == memory.history(user_id="u")
    assert roundtrip(memory.users(), list[Scope]) == [Scope("u")]
    deleted = memory.delete(user_id="u", session="2")
    assert roundtrip(deleted, DeleteReport) == deleted


def test_extra_keys_are_ignored_and_defaults_fill_in() -> None:
    fact = from_jsonable(Fact, {"id": "f-1", "context_id": "c-1", "text": "x", "unknown": 1})
    assert fact == Fact(id="f-1", context_id="c-1", text="x", source="llm")
    assert from_jsonable(IngestReport, {"turns_added": 2}).turns_added == 2


@pytest.mark.parametrize(
    ("kind", "data", "where"),
    [
        (Fact, {"id": "f-1", "text": "x"}, "Fact: the field 'context_id' is missing"),
        (Fact, {"id": "f-1", "context_id": "c", "text": "x", "source": "oracle"}, "Fact.source: 'oracle' is not"),
        (Turn, [], "Turn: expected an object, got list"),
        (list[Fact], [{"id": 1, "context_id": "c", "text": "x"}], "list[0].id: expected str, got int"),
        (
            Stats,
            {
                **dict.fromkeys(["contexts", "facts", "events", "turns", "sessions"], 0),
                "pending_extractions": 0,
                "failed_extractions": True,
                "usage": {},
            },
            "failed_extractions",
        ),
    ],
)
def test_wrong_shapes_name_the_place(kind: Any, data: Any, where: str) -> None:
    with pytest.raises(InputError, match=where.replace("[", r"\[").replace("]", r"\]")):
        from_jsonable(kind, data)
