"""Hypothesis over the service's inputs (REST and MCP): hostile strings (NUL, lone surrogates, CR/LF,
over-long), wrong types, out-of-range numbers, unknown variants and selectors. Asserts: never a 5xx
(nor a store or internal error over MCP), a refused add writes nothing, and the export re-imports."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from anchormem.config import Settings
from anchormem.embed.hashing import HashEmbedder
from anchormem.memory import Memory
from anchormem.server.app import create_app
from anchormem.server.keys import KeyRing
from anchormem.server.mcp import build_server
from tests.fixtures import SESSION_1, messages

ADMIN = {"Authorization": "Bearer key-admin", "Content-Type": "application/json"}
KEYS = KeyRing.from_raw({"key-admin": []}, admin=["key-admin"])
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))

NASTY = st.sampled_from(["a", "b", " ", "\x00", "\r", "\n", "\t", "\ud800", "\udfff", "é", "💡", "1", ":"])
TEXT = st.one_of(
    st.text(max_size=10),
    st.text(NASTY, min_size=1, max_size=8),
    st.sampled_from(["x" * 300, "y" * 20_000, "   ", ""]),
)
SAFE = st.text(st.characters(codec="utf-8", exclude_categories=["Cc"]), min_size=1, max_size=12).filter(str.strip)
VALUE = st.one_of(TEXT, st.none(), st.integers(-(2**70), 2**70), st.floats(), st.booleans(), st.lists(TEXT, max_size=2))
MOSTLY_SAFE = st.one_of(VALUE, *[SAFE] * 9)  # enough valid messages that adds succeed and exports have content
MESSAGE = st.fixed_dictionaries(
    {"speaker": st.one_of(st.sampled_from(["Ana", "Ben"]), VALUE), "text": MOSTLY_SAFE},
    optional={k: MOSTLY_SAFE for k in ("id", "session", "timestamp", "date", "image_caption")},
)
TURN = st.fixed_dictionaries(
    {"speaker": st.one_of(st.just("Ana"), st.just("Ben"), VALUE), "text": MOSTLY_SAFE},
    optional={"dia_id": st.one_of(st.sampled_from(["D1:1", "D1:2"]), VALUE), "blip_caption": MOSTLY_SAFE},
)
LOCOMO = st.builds(
    lambda turns, date: {"sample_id": "s", "conversation": {"session_1": turns, "session_1_date_time": date}},
    st.lists(TURN, min_size=1, max_size=4),
    VALUE,
)
COUNT = st.one_of(st.none(), st.none(), st.integers(-10, 10**13), st.sampled_from([1, 5, 200, 201]))
VARIANT = st.one_of(st.none(), st.none(), st.sampled_from(["anchormem", "bm25", "nope"]), TEXT)
USER = st.sampled_from(["alice", "alice", "bob", "a\r\nb", "   ", "a\x00", "x" * 300, "tab\t"])


def _fresh(path: Path) -> Memory:
    return Memory(Settings.load(env={}, store=str(path), embed__backend="hash"), embedder=HashEmbedder())


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with _fresh(tmp_path / "fuzz.db") as m:
        m.add(messages(SESSION_1), user_id="alice")
        yield m


def _turns(mem: Memory, user: str) -> int:
    try:
        return mem.stats(user_id=user).turns
    except Exception:
        return 0


def _reimports(mem: Memory, folder: Path) -> None:
    for scope in {s.user_id for s in mem.users()}:
        records = [json.loads(json.dumps(r)) for r in mem.export(user_id=scope)]
        target = folder / f"reimport-{len(list(folder.iterdir()))}.db"
        with _fresh(target) as other:
            report = other.import_records(records)
            assert report.turns == sum(r["type"] == "turn" for r in records)


def test_rest_inputs_never_give_5xx_or_partial_writes(mem: Memory, tmp_path: Path) -> None:
    with TestClient(create_app(mem, KEYS)) as client:

        def send(method: str, path: str, body: Any = None, **params: Any) -> Any:
            content = None if body is None else json.dumps(body)
            r = client.request(method, path, content=content, params=params, headers=ADMIN)
            assert r.status_code < 500, (method, path, body, params, r.text)
            return r

        @FUZZ
        @given(
            user=USER,
            body=st.one_of(
                st.fixed_dictionaries({"messages": st.lists(MESSAGE, max_size=4)}),
                st.fixed_dictionaries({"conversation": LOCOMO}),
                st.dictionaries(st.sampled_from(["messages", "conversation", "agent_id", "k"]), VALUE, max_size=2),
            ),
            query=st.one_of(SAFE, TEXT),
            k=COUNT,
            max_contexts=COUNT,
            variant=VARIANT,
            selector=st.sampled_from(["session", "turn", "context"]),
            target=TEXT,
        )
        def run(
            user: str,
            body: dict[str, Any],
            query: str,
            k: Any,
            max_contexts: Any,
            variant: Any,
            selector: str,
            target: str,
        ) -> None:
            path = f"/v1/users/{quote(user, safe='')}"
            before = _turns(mem, user) if user in ("alice", "bob") else 0
            r = send("POST", f"{path}/memories", body)
            if r.status_code != 200:
                assert (_turns(mem, user) if user in ("alice", "bob") else 0) == before, r.text
            search = {"query": query, "k": k, "max_contexts": max_contexts, "variant": variant}
            send("POST", f"{path}/search", {key: v for key, v in search.items() if v is not None})
            if "\ud800" not in target and "\udfff" not in target:  # a URL cannot carry a lone surrogate
                send("DELETE", f"{path}/memories", **{selector: target})
            send("GET", f"{path}/memories/turns")

        run()
    _reimports(mem, tmp_path)


DECLARED = {
    "add_memory": {"messages"},
    "search_memory": {"query", "k", "max_contexts"},
    "delete_memory": {"session", "turn", "context", "all"},
    "memory_stats": set(),
}
CALL = st.one_of(
    st.tuples(st.just("add_memory"), st.fixed_dictionaries({"messages": st.lists(MESSAGE, max_size=3)})),
    st.tuples(
        st.just("search_memory"),
        st.fixed_dictionaries({"query": TEXT}, optional={"k": COUNT, "max_contexts": COUNT, "user_id": USER}),
    ),
    st.tuples(
        st.just("delete_memory"),
        st.fixed_dictionaries({}, optional={"session": TEXT, "turn": TEXT, "user_id": USER, "all": st.just(False)}),
    ),
    st.tuples(st.just("memory_stats"), st.dictionaries(st.sampled_from(["user_id", "x"]), VALUE, max_size=1)),
)


def test_mcp_inputs_never_give_server_errors_or_partial_writes(mem: Memory, tmp_path: Path) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(calls=st.lists(CALL, min_size=1, max_size=8))
    def run(calls: list[tuple[str, dict[str, Any]]]) -> None:
        async def session() -> None:
            async with Client(build_server(mem, user_id="alice")) as client:
                for name, args in calls:
                    before = _turns(mem, "alice")
                    result = await client.call_tool(name, args)
                    text = result.content[0].text if result.content else ""
                    assert not any(code in text for code in ("internal_error", "store_error", "unexpected")), text
                    if result.is_error and name == "add_memory":
                        assert _turns(mem, "alice") == before, text
                    out_of_range = any(
                        v is not None and not 1 <= v <= 200 for key, v in args.items() if key in ("k", "max_contexts")
                    )
                    if set(args) - DECLARED[name] or out_of_range:
                        assert result.is_error and _turns(mem, "alice") == before, (name, args, text)
                    assert "bob" not in {s.user_id for s in mem.users()}

        asyncio.run(session())

    run()
    _reimports(mem, tmp_path)
