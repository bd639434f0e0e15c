"""Passages of long messages through the store and the lifecycle, on both stores: offsets stored and
read back, deletes and updates of the message remove exactly its passages, export and import keep
them (and an export without offsets still imports), and search sees passages as separate pieces."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.index.snapshot import ScopeSnapshot
from anchormem.memory import Memory
from anchormem.model import Context, Fact
from anchormem.wire.serialize import to_jsonable

pytestmark = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)

ESSAY = "\n\n".join(
    f"Part {n}: " + f"Here is a long explanation number {n} about sourdough starters and hydration. " * 6
    for n in range(1, 5)
)


def _messages() -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "How do I keep a sourdough starter?", "id": "q1", "session": "1"},
        {"role": "assistant", "content": ESSAY, "id": "a1", "session": "1"},
        {"role": "user", "content": "Thanks! My oven only reaches 230 degrees.", "id": "q2", "session": "1"},
        {"role": "assistant", "content": ESSAY.replace("sourdough", "rye"), "id": "a2", "session": "1"},
        {"role": "user", "content": "I baked a loaf today.", "id": "q3", "session": "2"},
        {"role": "assistant", "content": "Well done!", "id": "a3", "session": "2"},
    ]


@pytest.fixture
def mem(location: str) -> Iterator[Memory]:
    settings = Settings.load(env={}, store=location, embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as memory:
        memory.add(_messages(), user_id="ana")
        yield memory


def _pieces(mem: Memory, turn_id: str) -> list[tuple[str, tuple[int, int]]]:
    return [(c.id, c.offsets[i]) for c in mem.contexts(user_id="ana") for i, t in enumerate(c.turn_ids) if t == turn_id]


def test_passages_are_stored_with_their_offsets(mem: Memory) -> None:
    pieces = _pieces(mem, "a1")
    assert len(pieces) == 4
    assert [o for _, o in pieces] == sorted(o for _, o in pieces)
    text = next(t.text for t in mem.turns(user_id="ana") if t.id == "a1")
    for cid, (a, b) in pieces:
        context = mem.get(cid, user_id="ana")
        assert isinstance(context, Context) and text[a:b] in context.text and len(context.text) < len(text)
    assert all(len(c.text) < 900 for c in mem.contexts(user_id="ana")), "every context within the budget"


def test_deleting_a_message_removes_exactly_its_passages(mem: Memory) -> None:
    a1 = {cid for cid, _ in _pieces(mem, "a1")}
    a2 = _pieces(mem, "a2")
    report = mem.delete(turn="a1", user_id="ana")
    assert report.turns == 1
    left = mem.contexts(user_id="ana")
    assert not a1 & {c.id for c in left}
    assert all("a1" not in c.turn_ids for c in left)
    assert sorted(o for _, o in _pieces(mem, "a2")) == sorted(o for _, o in a2), "the other reply's passages stay"
    assert {f.context_id for f in mem.facts(user_id="ana")} <= {c.id for c in left}


def test_updating_a_message_recuts_its_passages(mem: Memory) -> None:
    old = {cid for cid, _ in _pieces(mem, "a2")}
    mem.update("a2", "Short now.", user_id="ana")
    assert not old & {c.id for c in mem.contexts(user_id="ana")}
    assert any("Short now." in c.text and "a2" in c.turn_ids for c in mem.contexts(user_id="ana"))
    assert len(_pieces(mem, "a1")) == 4


def test_export_and_import_keep_the_offsets_and_old_exports_still_import(mem: Memory, location: str) -> None:
    records = list(mem.export(user_id="ana"))
    contexts = [r for r in records if r["type"] == "context"]
    assert any(r["offsets"] for r in contexts) and any(r["offsets"] == [] for r in contexts)
    json.dumps(records)  # JSON-ready
    mem.delete(all=True, user_id="ana")
    mem.import_records(records)
    assert _pieces(mem, "a1") and sorted(o for _, o in _pieces(mem, "a1")) == sorted(
        tuple(r["offsets"][r["turn_ids"].index("a1")]) for r in contexts if "a1" in r["turn_ids"]
    )
    mem.delete(all=True, user_id="ana")
    old = [{k: v for k, v in r.items() if k != "offsets"} for r in records]
    mem.import_records(old)
    assert all(c.offsets == () for c in mem.contexts(user_id="ana")), "an export without offsets: whole messages"


def test_a_context_serialises_with_its_offsets(mem: Memory) -> None:
    result = mem.search("sourdough hydration", user_id="ana")
    data = to_jsonable(result)
    assert any(h["context"]["offsets"] for h in data["contexts"])
    assert all(len(h["context"]["offsets"]) in (0, len(h["context"]["turn_ids"])) for h in data["contexts"])


def _snapshot(contexts: list[Context]) -> ScopeSnapshot:
    return ScopeSnapshot(contexts, [Fact("f", contexts[0].id, "x")], np.zeros((1, 4), np.float32))


def test_two_passages_of_one_message_are_different_pieces_but_a_repeat_is_covered(location: str) -> None:
    one = Context("c1", "1", 0, ("a1",), None, "DATE: d\np1", offsets=((0, 600),))
    two = Context("c2", "1", 1, ("a1",), None, "DATE: d\np2", offsets=((602, 1200),))
    again = Context("c3", "2", 0, ("a1",), None, "DATE: d\np1 again", offsets=((0, 600),))
    whole = Context("c4", "3", 0, ("q1", "a9"), None, "DATE: d\nq\na")
    snap = _snapshot([one, two, again, whole])
    turns = snap.context_turns
    assert not turns[0] & turns[1], "a passage does not cover its sibling"
    assert turns[0] == turns[2], "the same passage again is covered"
    assert turns[3] == frozenset({"q1", "a9"}), "whole messages keep their plain keys"
    ctx_rows, turn_rows, n = snap.turn_segments
    assert n == 4 and list(ctx_rows) == [0, 1, 2, 3, 3] and turn_rows[0] == turn_rows[2] != turn_rows[1]
