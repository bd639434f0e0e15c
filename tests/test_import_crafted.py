"""Crafted imports that used to pass: turns no context holds (the next add derived them all: 1,000 turns
made a one-message add take 47 s), fields no record type has, and all-zero vectors. Each is refused whole,
naming the record, before anything is written."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError
from anchormem.memory import Memory
from tests.fixtures import SESSION_1, messages

Records = list[dict[str, Any]]


def _mem(path: Path) -> Memory:
    return Memory(Settings.load(env={}, store=str(path), embed__backend="hash"), embedder=HashEmbedder())


@pytest.fixture
def export(tmp_path: Path) -> Records:
    with _mem(tmp_path / "source.db") as a:
        a.add(messages(SESSION_1, "1"), user_id="u")
        records: Records = json.loads(json.dumps(list(a.export(user_id="u"))))
    return records


def _refused(tmp_path: Path, records: Records, match: str) -> None:
    with _mem(tmp_path / "target.db") as b:
        with pytest.raises(InputError, match=match):
            b.import_records(records)
        assert b.users() == []


def test_an_export_imports_whole(tmp_path: Path, export: Records) -> None:
    with _mem(tmp_path / "target.db") as b:
        assert b.import_records(export).turns == len(SESSION_1)


def test_turns_without_contexts_are_refused_before_the_next_add_derives_them(tmp_path: Path) -> None:
    header = {"type": "header", "format": "anchormem-export", "version": 1, "embedder": None, "dim": 8}
    turns = [
        {"type": "turn", "id": f"t{i}", "session": "1", "position": i, "speaker": "Ana", "text": f"Message {i}."}
        for i in range(1000)
    ]
    records = [header, {"type": "scope", "user_id": "u", "agent_id": None, "run_id": None}, *turns]
    started = time.perf_counter()
    _refused(tmp_path, records, r"record 3: turn 't0' of user 'u' is in no context \(1000 such turns\).*anchormem add")
    assert time.perf_counter() - started < 5


def test_a_turn_left_out_of_every_context_is_refused(tmp_path: Path, export: Records) -> None:
    turn = next(r for r in export if r["type"] == "turn")
    loose = {**turn, "id": "extra", "position": 99}
    at = export.index(turn) + 1
    records = [*export[:at], loose, *export[at:]]
    _refused(tmp_path, records, f"record {at + 1}: turn 'extra' .* in no context")


@pytest.mark.parametrize("kind", ["header", "scope", "turn", "context", "fact", "usage", "history"])
def test_unknown_fields_are_refused_naming_the_record(tmp_path: Path, export: Records, kind: str) -> None:
    at = next((i for i, r in enumerate(export) if r["type"] == kind), None)
    if at is None:
        pytest.skip(f"the offline export holds no {kind} record")
    export[at] = {**export[at], "is_admin": True}
    _refused(tmp_path, export, f"record {at + 1}: unknown field 'is_admin' in a {kind} record")


def test_all_zero_vectors_are_refused(tmp_path: Path, export: Records) -> None:
    at = next(i for i, r in enumerate(export) if r["type"] == "fact")
    dim = export[0]["dim"]
    export[at]["vector"] = base64.b64encode(np.zeros(dim, dtype="<f4").tobytes()).decode()
    _refused(tmp_path, export, f"record {at + 1}: 'vector' is all zeros")


def test_an_export_of_an_earlier_version_still_imports(tmp_path: Path, export: Records) -> None:
    """Usage written before call and wall time were told apart had one 'seconds' field."""
    usage = {"type": "usage", "phase": "extraction", "calls": 2, "prompt_tokens": 30, "completion_tokens": 5}
    usage |= {"seconds": 1.5, "cached_calls": 0, "failed_calls": 0}
    history = next(i for i, r in enumerate(export) if r["type"] == "history")
    records = [*export[:history], usage, *export[history:]]
    with _mem(tmp_path / "target.db") as b:
        b.import_records(records)
        got = b.stats(user_id="u").usage["extraction"]
    assert got.call_seconds == 1.5 and got.prompt_tokens == 30 and got.wall_seconds == 0
