"""Hostile export files: every one is refused whole, with one InputError naming the record and the
field, before anything is written; on SQLite and PostgreSQL. A write that fails half-way leaves
nothing behind, so the same file imports once the cause is gone."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError, StoreError
from anchormem.llm.fake import FakeLLM
from anchormem.memory import Memory
from tests.conftest import llm_responder
from tests.fixtures import SESSION_1, SESSION_2, messages
from tests.pg_server import PgServer

Records = list[dict[str, Any]]
BACKENDS = pytest.mark.parametrize("location", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "target.db")
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database("imp")
    yield url
    server.drop_database(url)


def _mem(location: str, llm: FakeLLM | None = None) -> Memory:
    return Memory(Settings.load(env={}, store=location, embed__backend="hash"), embedder=HashEmbedder(), llm=llm)


@pytest.fixture
def export(tmp_path: Path) -> Records:
    with _mem(str(tmp_path / "source.db"), FakeLLM(llm_responder)) as a:
        a.add(messages(SESSION_1, "1"), user_id="u")
        a.add(messages(SESSION_2, "2", stamp="2024-03-08 18:00"), user_id="u")
        records: Records = json.loads(json.dumps(list(a.export(user_id="u"))))
    kinds = {r["type"] for r in records}
    assert kinds == {"header", "scope", "turn", "context", "fact", "event", "usage", "history"}
    return records


def _b64(values: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode()


def _first(records: Records, kind: str) -> int:
    return next(i for i, r in enumerate(records) if r["type"] == kind)


def _set(kind: str, **changes: Any) -> Callable[[Records], Records]:
    def change(records: Records) -> Records:
        i = _first(records, kind)
        records[i] = {**records[i], **changes}
        return records

    return change


def _vector(value: float) -> Callable[[Records], Records]:
    def change(records: Records) -> Records:
        i = _first(records, "fact")
        vec = np.frombuffer(base64.b64decode(records[i]["vector"]), dtype="<f4").copy()
        vec[3] = value
        records[i] = {**records[i], "vector": _b64(vec)}
        return records

    return change


def _dim(dim: int) -> Callable[[Records], Records]:
    """A consistent export of another dimension: the header and every vector say ``dim``."""

    def change(records: Records) -> Records:
        out = []
        for r in records:
            if r["type"] == "header":
                r = {**r, "dim": dim}
            elif "vector" in r:
                r = {**r, "vector": _b64(np.full(dim, 0.1, dtype=np.float32))}
            out.append(r)
        return out

    return change


HOSTILE: dict[str, tuple[Callable[[Records], Records], str]] = {
    "lone surrogate in a fact": (_set("fact", text="\ud800"), r"record \d+: 'text' contains a lone surrogate"),
    "lone surrogate in a turn": (_set("turn", text="ok \udfff"), r"record \d+: 'text' contains a lone surrogate"),
    "NaN in a vector": (_vector(float("nan")), r"record \d+: 'vector' holds NaN"),
    "inf in a vector": (_vector(float("inf")), r"record \d+: 'vector' holds NaN or infinite"),
    "dim 32 into a 64-dim store": (_dim(32), r"record 1 \(header\): 'dim' is 32"),
    "more than 16,000 dimensions": (_set("header", dim=16_001), r"record 1: 'dim' must be an integer from 0 to 16,000"),
    "embedder null": (_set("header", embedder=None), r"record 1 \(header\): 'embedder' is null"),
    "attempts 2**40": (_set("context", attempts=2**40), r"record \d+: 'attempts' must be an integer"),
    "position 2**40": (_set("turn", position=2**40), r"record \d+: 'position' must be an integer"),
    "negative position": (_set("turn", position=-1), r"record \d+: 'position' must be an integer"),
    "usage calls 2**70": (_set("usage", calls=2**70), r"record \d+: 'calls' must be an integer"),
    "NUL in a turn id": (_set("turn", id="D1\x00"), r"record \d+: 'id' contains a NUL byte"),
    "NUL in a session": (_set("turn", session="1\x00"), r"record \d+: 'session' contains a NUL byte"),
    "NUL in a timestamp": (_set("turn", timestamp="2024\x00"), r"record \d+: 'timestamp' contains a NUL byte"),
    "NUL in a caption": (_set("turn", image_caption="a\x00"), r"record \d+: 'image_caption' contains a NUL byte"),
    "NUL in a date": (_set("context", date="2024\x00"), r"record \d+: 'date' contains a NUL byte"),
    "NUL in history": (_set("history", detail={"x": "a\x00"}), r"record \d+: 'detail' contains a NUL byte"),
    "NaN in history": (_set("history", timestamp=float("nan")), r"record \d+: 'timestamp' must be a finite number"),
    "CRLF in an id": (_set("turn", id="a\r\nb"), r"record \d+: 'id' contains a control character"),
    "long id": (_set("turn", id="x" * 300), r"record \d+: 'id' is 300 characters; the limit is 256"),
    "empty turn id in a context": (_set("context", turn_ids=[""]), r"record \d+: 'turn_ids' is empty"),
    "1 MB date": (_set("context", date="x" * 1_000_000), r"record \d+: 'date' is 1,000,000 characters"),
    "blank user": (_set("scope", user_id="   "), r"record 2: user_id must be a non-empty string"),
    "CRLF user": (_set("scope", user_id="u\r\nX-Admin: 1"), r"record 2: user_id contains a control character"),
    "10,000-character user": (_set("scope", user_id="u" * 10_000), r"record 2: user_id is 10,000 characters"),
}


@BACKENDS
def test_hostile_exports_are_refused_whole_and_write_nothing(location: str, export: Records) -> None:
    with _mem(location) as target:
        for name, (change, message) in HOSTILE.items():
            broken = change(json.loads(json.dumps(export)))
            with pytest.raises(InputError, match=message):
                target.import_records(broken)
            assert target.users() == [], name
        report = target.import_records(export)  # the intact file still imports, exactly
        assert report.turns == len(SESSION_1) + len(SESSION_2)
        assert [r for r in target.export(user_id="u") if r["type"] not in ("history", "header")] == [
            r for r in export if r["type"] not in ("history", "header")
        ]


@BACKENDS
def test_dimension_must_match_a_store_that_has_vectors(location: str, export: Records) -> None:
    with _mem(location) as target:
        target.add(messages(SESSION_1, "1"), user_id="other")
        with pytest.raises(InputError, match=r"'dim' is 32, but embedder 'hash-64' of this store has 64"):
            target.import_records(_dim(32)(json.loads(json.dumps(export))))
        assert [s.user_id for s in target.users()] == ["other"]
        target.add(messages(SESSION_2, "2"), user_id="other")  # the store still works


@BACKENDS
def test_a_write_that_fails_half_way_leaves_nothing(
    location: str, export: Records, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _mem(location) as target:

        def broken(*_: Any, **__: Any) -> int:
            raise StoreError("disk I/O error")

        monkeypatch.setattr(target.store, "add_events", broken)
        with pytest.raises(StoreError):
            target.import_records(export)
        monkeypatch.undo()
        assert target.users() == []
        assert target.import_records(export).turns == len(SESSION_1) + len(SESSION_2)
