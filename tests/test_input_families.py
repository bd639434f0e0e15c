"""Issue 30's input families, through every shell that takes them (Python, REST, MCP arguments, import):
nesting depth, booleans given as strings, dates that do not exist, NUL bytes in metadata, unbounded files,
and arguments of the wrong type. Each is refused as the library's own ``InputError`` (REST: 400
``invalid_input``), nothing is stored, and what is already stored is never lost."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from anchormem._util import files
from anchormem.cli.main import main
from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.errors import InputError
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from anchormem.wire.serialize import CLIPPED, stored_json, to_jsonable
from anchormem.wire.validation import MAX_DEPTH
from tests.fixtures import SESSION_1, messages

ADMIN = "amk_admin_for_input_families"
HEADERS = {"Authorization": f"Bearer {ADMIN}"}


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"k": value}
    return value


def nested_json(depth: int) -> str:
    """``nested(depth)`` as JSON text, written without recursion."""
    return '{"k":' * depth + '{"leaf":1}' + "}" * depth


@pytest.fixture
def client(memory: Memory) -> Any:
    with TestClient(create_app(memory, KeyRing.from_raw({ADMIN: []}, admin=[ADMIN]))) as c:
        yield c


def _stored(memory: Memory, user: str) -> int:
    return len(memory.turns(user_id=user)) if any(s.user_id == user for s in memory.users()) else 0


# -- depth -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 200, 500, 990, 5000])
def test_deep_metadata_is_refused_in_words_never_a_recursion_error(memory: Memory, depth: int) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="nested more than 16 levels"):
        memory.add([{"role": "user", "content": "hi", "metadata": nested(depth)}], user_id="ana")
    assert _stored(memory, "ana") == len(SESSION_1)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000])
def test_deep_search_filters_are_refused_in_words(memory: Memory, depth: int) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="nested more than 16 levels"):
        memory.search("dog", user_id="ana", filters={"topic": nested(depth)})


@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_deep_rest_bodies_are_400(client: TestClient, memory: Memory, depth: int) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    json_headers = {**HEADERS, "Content-Type": "application/json"}
    search = '{"query": "dog", "filters": {"a": ' + nested_json(depth) + "}}"
    add = '{"messages": [{"role": "user", "content": "x", "metadata": ' + nested_json(depth) + "}]}"
    for path, body in (("search", search), ("memories", add)):
        r = client.post(f"/v1/users/ana/{path}", content=body, headers=json_headers)
        assert r.status_code == 400, r.text
    assert _stored(memory, "ana") == len(SESSION_1)


def test_metadata_at_the_bound_is_kept_whole(memory: Memory) -> None:
    meta = nested(MAX_DEPTH - 1)
    memory.add([{"role": "user", "content": "deep but fine", "metadata": meta}], user_id="ana")
    assert memory.turns(user_id="ana")[0].metadata == meta


def test_deep_metadata_over_rest_is_400_invalid_input(client: TestClient, memory: Memory) -> None:
    body = '{"messages": [{"role": "user", "content": "hi", "metadata": ' + nested_json(500) + "}]}"
    r = client.post("/v1/users/ana/memories", content=body, headers={**HEADERS, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_input"
    assert "nested" in r.json()["error"]["message"]
    assert memory.users() == []


def test_deep_metadata_in_an_import_is_refused(memory: Memory, tmp_path: Path) -> None:
    memory.add([{"role": "user", "content": "hi", "metadata": {"a": 1}}], user_id="ana")
    records = list(memory.export(user_id="ana"))
    turns = [r for r in records if r.get("metadata") == {"a": 1}]
    assert turns
    turns[0]["metadata"] = nested(300)
    settings = Settings.load(env={}, store=str(tmp_path / "other.db"), embed__backend="hash")
    with Memory(settings, embedder=HashEmbedder()) as other:
        with pytest.raises(InputError, match="nested more than 16 levels"):
            other.import_records(records)
        assert other.users() == []


def test_deep_metadata_stored_before_the_bound_reads_back_clipped(memory: Memory, tmp_path: Path) -> None:
    """A memory written by an older version may hold deeper metadata: listings, get, export and the CLI read it
    without a RecursionError, the part below the bound shown as a short text."""
    memory.add([{"role": "user", "content": "hello", "metadata": {"a": 1}}], user_id="ana")
    turn = memory.turns(user_id="ana")[0]
    deep = nested_json(400)
    with memory.store._tx() as cur:  # type: ignore[attr-defined]  # the row as an older version wrote it
        cur.execute("UPDATE turns SET metadata = ? WHERE id = ?", (deep, turn.id))
    memory.close()
    with Memory(memory.settings) as again:
        meta = again.turns(user_id="ana")[0].metadata
        depth, node = 0, meta
        while isinstance(node, dict) and "k" in node:
            node, depth = node["k"], depth + 1
        assert node == CLIPPED and depth == MAX_DEPTH + 1
        assert json.dumps(to_jsonable(again.get(turn.id, user_id="ana")))
        assert len(list(again.export(user_id="ana"))) > 1
    code = main(["list", "turns", "--user", "ana", "--json", "--store", memory.settings.store_location])
    assert code == 0


def test_a_stored_value_too_deep_even_for_the_json_reader_is_clipped_whole() -> None:
    assert stored_json("[" * 100_000 + "]" * 100_000) == CLIPPED


# -- booleans ------------------------------------------------------------------------------------------------

NOT_BOOLEANS = ["false", "no", "0", "true", 0, 1, [0], None, {}]


@pytest.mark.parametrize("value", NOT_BOOLEANS)
def test_delete_all_takes_a_real_boolean_only(memory: Memory, value: Any) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="'all' must be true or false"):
        memory.delete(user_id="ana", all=value)
    assert _stored(memory, "ana") == len(SESSION_1)


@pytest.mark.parametrize("flag", ["include_subscopes", "trace"])
@pytest.mark.parametrize("value", ["false", "no", "0", [0]])
def test_search_flags_take_real_booleans_only(memory: Memory, flag: str, value: Any) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match=f"'{flag}' must be true or false"):
        memory.search("dog", user_id="ana", **{flag: value})


@pytest.mark.parametrize("value", ["0", "1", "no", "yes", "False"])
def test_rest_delete_all_takes_true_or_false_only(client: TestClient, memory: Memory, value: str) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    r = client.delete(f"/v1/users/ana/memories?all={value}", headers=HEADERS)
    assert r.status_code in (400, 422) and _stored(memory, "ana") == len(SESSION_1)
    assert client.delete("/v1/users/ana/memories?all=true", headers=HEADERS).status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        {"query": "dog", "include_subscopes": "false"},
        {"query": "dog", "include_subscopes": 0},
        {"query": "dog", "since": True},
    ],
)
def test_rest_search_refuses_lax_booleans_and_times(client: TestClient, memory: Memory, body: dict[str, Any]) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    r = client.post("/v1/users/ana/search", json=body, headers=HEADERS)
    assert r.status_code in (400, 422), r.text


def test_rest_add_refuses_a_string_background(client: TestClient, memory: Memory) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}], "background": "false"}
    assert client.post("/v1/users/ana/memories", json=body, headers=HEADERS).status_code in (400, 422)
    assert memory.users() == []


def test_the_client_refuses_string_booleans_before_sending() -> None:
    from anchormem.client import calls

    with pytest.raises(InputError, match="'all' must be true or false"):
        next(calls.delete(user_id="ana", all="false"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="'readd' must be true or false"):
        next(calls.add("hi", user_id="ana", readd="no"))  # type: ignore[arg-type]


# -- dates ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["2024-01-01T25:00", "2024-02-30", "2024-13-01", "+275760-09-13", "-0001-01-01"])
def test_dates_that_do_not_exist_are_refused_as_message_times(memory: Memory, value: str) -> None:
    with pytest.raises(InputError, match="timestamp"):
        memory.add([{"role": "user", "content": "hi", "timestamp": value}], user_id="ana")
    assert memory.users() == []


@pytest.mark.parametrize("value", [True, "2024-01-01T25:00", "+275760-09-13"])
@pytest.mark.parametrize("field", ["since", "until"])
def test_dates_that_do_not_exist_are_refused_as_filters(memory: Memory, field: str, value: Any) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match=field):
        memory.search("dog", user_id="ana", **{field: value})


def test_a_valid_date_followed_by_words_is_still_free_text(memory: Memory) -> None:
    memory.add([{"role": "user", "content": "hi", "timestamp": "2023-05-08 13:56 CEST"}], user_id="ana")
    assert memory.turns(user_id="ana")[0].timestamp == "2023-05-08 13:56 CEST"


# -- NUL bytes in metadata ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "over_rest"),
    [
        ({"k\x00": "v"}, True),
        ({"k": "v\x00"}, True),
        ({"k": ["a", {"b": "\x00"}]}, True),
        ({"k": "\ud800"}, False),  # not encodable as a JSON request body
        ({"\ud800": 1}, False),
    ],
)
def test_nul_bytes_and_lone_surrogates_are_refused_in_metadata_keys_and_values(
    memory: Memory, client: TestClient, metadata: dict[str, Any], over_rest: bool
) -> None:
    with pytest.raises(InputError, match="'metadata'"):
        memory.add([{"role": "user", "content": "hi", "metadata": metadata}], user_id="ana")
    if over_rest:
        body = {"messages": [{"role": "user", "content": "hi", "metadata": metadata}]}
        r = client.post("/v1/users/ana/memories", json=body, headers=HEADERS)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_input"
    assert memory.users() == []


# -- files ---------------------------------------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_read_with_a_bound(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 4 * 2**20)
    monkeypatch.setattr(files.read_limited, "__defaults__", (4 * 2**20, InputError))
    with pytest.raises(InputError, match="larger than 4,194,304 bytes"):
        memory.add(Path("/dev/zero"), user_id="ana")
    assert memory.users() == []


def test_a_file_over_the_bound_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b" " * 5000 + b"]")
    with pytest.raises(InputError, match="larger than 1,000 bytes"):
        files.read_limited(path, 1000)
    assert files.read_limited(path, 6000).startswith(b"[")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_an_import_line_is_read_with_a_bound() -> None:
    with open("/dev/zero", "rb") as fh, pytest.raises(InputError, match="line 1 is longer than 1,024 bytes"):
        list(files.lines_limited(fh, "/dev/zero", limit=1024))


# -- wrong types ---------------------------------------------------------------------------------------------


def test_get_of_none_is_an_input_error(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="record_id"):
        memory.get(None, user_id="ana")  # type: ignore[arg-type]


@pytest.mark.parametrize("max_chars", ["5", -1, 2.5, True, [5]])
def test_as_prompt_of_a_bad_budget_is_an_input_error(memory: Memory, max_chars: Any) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    result = memory.search("dog", user_id="ana")
    with pytest.raises(InputError, match="max_chars"):
        result.as_prompt(max_chars=max_chars)


def test_as_prompt_of_bad_names_is_an_input_error(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    with pytest.raises(InputError, match="names"):
        memory.search("dog", user_id="ana").as_prompt(names={"user": 3})  # type: ignore[dict-item]
