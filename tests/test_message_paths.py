"""One message model on every path: the same OpenAI-format chat added through Python, the CLI, the REST
API (raw HTTP and the HTTP client), MCP and ``AsyncMemory`` is stored as the same turns; a bad message
is refused with the same words (message, part and field) on each path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client as McpClient

from anchormem.aio import AsyncMemory
from anchormem.cli.main import main
from anchormem.client import Client
from anchormem.errors import InputError
from anchormem.eval.locomo import add_locomo
from anchormem.ingest.sources import Conversation
from anchormem.memory import Memory
from anchormem.server.mcp import build_server
from anchormem.wire.serialize import to_jsonable
from tests.fixtures import write_locomo
from tests.live_server import LiveServer, serve

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


# fmt: off
CHAT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are Maya's running coach."},
    {"role": "user", "name": "Maya", "content": "Hi! I want to run a half marathon in October.",
     "created_at": 1717000000, "metadata": {"channel": "app"}},
    {"role": "assistant", "content": [text("Great goal."), text("How far do you run now?")],
     "created_at": 1717000060},
    {"role": "user", "name": "Maya", "content": [text("About 5 km, three times a week."), IMAGE],
     "created_at": "2024-05-29T16:28:00Z"},
    {"role": "assistant", "content": "Let's add a long run on Sundays.", "created_at": "2024-05-29T16:29:00+02:00"},
    {"role": "user", "name": "Maya", "content": "ok", "created_at": 1717000300},
    {"role": "user", "name": "Maya", "content": "ok"},
    {"role": "user", "name": "Maya", "content": "My knee hurt after the last run.", "metadata": {"topic": "health"}},
    {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't diagnose injuries."},
                                      text("Please see a physiotherapist.")]},
    {"role": "user", "name": "Maya", "content": [text("Here is my plan."),
                                                 {"type": "file", "file": {"filename": "plan.pdf"}}],
     "created_at": 1717000500000},
    {"role": "assistant", "content": "Thanks, I read it.", "created_at": "1717000560"},
    {"role": "user", "content": "I also swim on Fridays.", "session": "2", "created_at": "2024-06-07",
     "metadata": {"topic": "cross-training", "tags": ["swim", "friday"]}},
    {"role": "assistant", "content": "Swimming is great recovery.", "session": "2"},
    {"role": "user", "name": "Maya", "content": [{"type": "input_audio", "input_audio": {"data": "UklG",
                                                                                          "format": "wav"}}],
     "session": "2", "created_at": "last Friday evening"},
    {"role": "assistant", "content": "I could not play the audio; could you type it?", "session": "2"},
    {"role": "user", "name": "Maya", "content": "I said my new shoes arrived.", "session": "2", "id": "maya-shoes"},
    {"role": "assistant", "content": "Which model did you get?", "session": "2", "time": 1717800000},
    {"role": "user", "name": "Maya", "content": "The blue trail ones.", "session": "2", "timestamp": 1717800060,
     "image_caption": "a pair of blue trail running shoes"},
    {"role": "assistant", "content": "Break them in on short runs first.", "session": "2",
     "metadata": {"advice": True, "confidence": 0.8, "source": None}},
    {"role": "user", "name": "Maya", "content": "Will do, thanks!", "session": "2", "created_at": 1717800180},
]
# fmt: on
BAD = [
    {"role": "user", "content": "fine"},
    {"role": "user", "content": "also fine"},
    {"role": "user", "content": [text("a"), "b"]},
]
BAD_WORDS = "message 3: 'content' part 2 must be an object"
PATHS = ("python", "async", "cli", "rest", "client", "mcp")


def stored(memory: Memory, user: str) -> list[dict[str, Any]]:
    return [to_jsonable(t) for t in memory.turns(user_id=user)]


@pytest.fixture
def server(memory: Memory) -> Iterator[LiveServer]:
    with serve(memory) as live:
        yield live


def add_python(memory: Memory, user: str, chat: list[dict[str, Any]]) -> None:
    memory.add(chat, user_id=user)


def add_async(memory: Memory, user: str, chat: list[dict[str, Any]]) -> None:
    asyncio.run(AsyncMemory.wrap(memory).add(chat, user_id=user))


def add_cli(memory: Memory, user: str, chat: list[dict[str, Any]], tmp_path: Path) -> int:
    """``anchormem add FILE`` on the memory's own store file (a JSONL file: one message a line)."""
    path = tmp_path / f"{user}.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in chat), encoding="utf-8")
    store = memory.settings.store
    return main(["add", str(path), "--user", user, "--store", str(store), "--embed-backend", "hash", "--quiet"])


def post_rest(server: LiveServer, user: str, chat: list[dict[str, Any]]) -> httpx.Response:
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    return httpx.post(f"{server.url}/v1/users/{user}/memories", json={"messages": chat}, headers=headers, timeout=30)


def add_client(server: LiveServer, user: str, chat: list[dict[str, Any]]) -> None:
    with Client(server.url, api_key=server.admin_key) as client:
        client.add(chat, user_id=user)


async def _mcp(memory: Memory, user: str, chat: list[dict[str, Any]]) -> Any:
    async with McpClient(build_server(memory, user_id=user)) as client:
        return await client.call_tool("add_memory", {"messages": chat})


def test_the_same_chat_is_stored_the_same_through_every_path(
    memory: Memory, server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    add_python(memory, "python", CHAT)
    add_async(memory, "async", CHAT)
    assert add_cli(memory, "cli", CHAT, tmp_path) == 0
    capsys.readouterr()
    assert post_rest(server, "rest", CHAT).status_code == 200
    add_client(server, "client", CHAT)
    result = asyncio.run(_mcp(memory, "mcp", CHAT))
    assert not result.is_error, result.content

    expected = stored(memory, "python")
    assert len(expected) == len(CHAT) == 20
    for path in PATHS[1:]:
        assert stored(memory, path) == expected, path
    # the listings show the same turns: the CLI's --json list and the REST API's pages
    code = main(["list", "turns", "--user", "cli", "--store", str(memory.settings.store), "--json", "--quiet"])
    assert code == 0 and json.loads(capsys.readouterr().out) == expected
    headers = {"Authorization": f"Bearer {server.admin_key}"}
    page = httpx.get(f"{server.url}/v1/users/rest/memories/turns", headers=headers, timeout=30).json()
    assert page["items"] == expected

    by_text = {t["text"]: t for t in expected}
    first = by_text["Hi! I want to run a half marathon in October."]
    assert first["speaker"] == "Maya" and first["metadata"] == {"channel": "app", "role": "user"}
    assert first["timestamp"] == "4:26 pm on 29 May, 2024 UTC" and first["time_given"] == "1717000000"
    assert by_text["Great goal.\nHow far do you run now?"]["speaker"] == "assistant"
    assert "About 5 km, three times a week.\n[image]" in by_text
    assert by_text["Let's add a long run on Sundays."]["timestamp"] == "2:29 pm on 29 May, 2024 UTC"
    assert "I can't diagnose injuries.\nPlease see a physiotherapist." in by_text
    assert by_text["Here is my plan.\n[file: plan.pdf]"]["timestamp"] == "4:35 pm on 29 May, 2024 UTC"
    assert by_text["Thanks, I read it."]["time_given"] == "1717000560"
    assert by_text["I also swim on Fridays."]["timestamp"] == "7 June, 2024"
    assert by_text["[audio]"]["timestamp"] == "last Friday evening" == by_text["[audio]"]["time_given"]
    assert by_text["I said my new shoes arrived."]["id"] == "maya-shoes"
    assert by_text["The blue trail ones."]["image_caption"] == "a pair of blue trail running shoes"
    assert by_text["Break them in on short runs first."]["metadata"] == {
        "advice": True,
        "confidence": 0.8,
        "source": None,
    }
    oks = [t for t in expected if t["text"] == "ok"]
    assert len(oks) == 2 and oks[0]["id"] != oks[1]["id"], "the same words said twice are two turns"
    assert [t["session"] for t in expected] == ["1"] * 11 + ["2"] * 9
    assert [t["position"] for t in expected] == list(range(11)) + list(range(9))


def test_a_bad_message_reads_the_same_on_every_path(
    memory: Memory, server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(InputError, match=BAD_WORDS):
        add_python(memory, "python", BAD)
    with pytest.raises(InputError, match=BAD_WORDS):
        add_async(memory, "async", BAD)
    with pytest.raises(InputError, match=BAD_WORDS):
        add_client(server, "client", BAD)
    code = add_cli(memory, "cli", BAD, tmp_path)
    err = capsys.readouterr().err
    assert code != 0 and f"cli.jsonl: {BAD_WORDS}" in err and err.count("\n") == 1
    reply = post_rest(server, "rest", BAD)
    assert reply.status_code == 400 and reply.json()["error"]["code"] == "invalid_input"
    assert reply.json()["error"]["message"].startswith(BAD_WORDS)
    result = asyncio.run(_mcp(memory, "mcp", BAD))
    assert result.is_error and f"invalid_input: {BAD_WORDS}" in result.content[0].text
    assert memory.users() == []


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ({"content": "hi"}, "message 1: missing field 'speaker' or 'role'"),
        ({"role": "user"}, "message 1: missing field 'text' or 'content'"),
        ({"role": "user", "content": 5}, "message 1: 'content' must be a string or a list of content parts, got int"),
        ({"role": "user", "content": [{"type": "text"}]}, "message 1: 'content' part 1 (text) needs a string 'text'"),
        ({"role": "user", "content": [{"text": 3}]}, "part 1 (text) needs a string 'text', got int"),
        ({"role": "user", "content": [IMAGE], "metadata": [1]}, "message 1: 'metadata' must be an object, got list"),
        ({"role": "user", "content": "x", "metadata": {"at": {1, 2}}}, "'metadata' must hold only JSON values"),
        ({"role": "user", "content": "x", "created_at": [1]}, "'created_at' must be a string or a number, got list"),
        ({"role": "user", "content": "x", "created_at": -5}, "'created_at' -5 is not a Unix time"),
        ({"role": 7, "content": "x"}, "message 1: 'role' must be a string, got int"),
        ({"role": "user", "content": [{"type": ""}]}, "'content' part 1 needs a 'type'"),
        ({"role": "user", "content": [{"type": "text", "text": " "}]}, "message 1: 'content' is empty"),
        ({"role": "user", "content": "x", "user_id": "bob"}, "message 1: 'user_id' is not a message field"),
    ],
)
def test_errors_name_the_message_and_the_field(memory: Memory, message: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError) as caught:
        memory.add([message], user_id="u")
    assert words in str(caught.value) and "pydantic" not in str(caught.value)


def test_rest_and_mcp_refuse_with_the_library_words_not_pydantic(memory: Memory, server: LiveServer) -> None:
    shapes = ["just text", {"role": "user", "content": 5}]
    for shape in shapes:
        reply = post_rest(server, "rest", [shape])
        message = reply.json()["error"]["message"]
        assert reply.status_code == 400 and message.startswith("message 1: ") and "pydantic" not in message
        result = asyncio.run(_mcp(memory, "mcp", [shape]))
        text = result.content[0].text
        assert result.is_error and "invalid_input: message 1: " in text and "pydantic" not in text

    async def call(arguments: dict[str, Any]) -> str:
        async with McpClient(build_server(memory, user_id="mcp")) as client:
            result = await client.call_tool("add_memory", arguments)
            assert result.is_error
            return str(result.content[0].text)

    assert "invalid_input: 'messages' must be a list of messages, got str" in asyncio.run(call({"messages": "hi"}))
    assert "invalid_input: add_memory needs the argument 'messages'" in asyncio.run(call({}))


def test_the_client_sends_files_and_conversations_like_memory_add(
    memory: Memory, server: LiveServer, tmp_path: Path
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT), encoding="utf-8")
    memory.add(path, user_id="python")
    locomo = write_locomo(tmp_path / "conv.json")
    add_locomo(memory, locomo, user_id="python-locomo", sample="conv-1")
    with Client(server.url, api_key=server.admin_key) as client:
        client.add(path, user_id="client")
        client.add(Conversation("c", tuple(memory.turns(user_id="python"))), user_id="client-conversation")
        client.add(locomo, user_id="client-locomo", sample="conv-1")
        client.add("I keep bees.", user_id="client-text")
        with pytest.raises(InputError, match="pick one with sample"):
            client.add(locomo, user_id="x", sample="conv-9")
    assert stored(memory, "client") == stored(memory, "python") == stored(memory, "client-conversation")
    assert stored(memory, "client-locomo") == stored(memory, "python-locomo")
    memory.add("I keep bees.", user_id="python-text")
    assert stored(memory, "client-text") == stored(memory, "python-text")


def test_cli_adds_one_message_and_lists_turns_with_their_time_and_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--user", "maya", "--store", str(tmp_path / "cli.db"), "--embed-backend", "hash", "--quiet"]
    # a retry sends the same message with the same time; without --time each add is "now", so two adds a
    # second apart are two messages (docs/messages.md), and the test would depend on the clock
    when = ["--time", "2024-05-28T09:00:00Z"]
    assert main(["add", "--message", "I like tea.", *when, *base]) == 0
    assert main(["add", "--message", "I like tea.", "--json", *when, *base]) == 0  # the same message again
    assert main(["add", "--message", "Noted.", "--speaker", "assistant", *when, *base]) == 0
    capsys.readouterr()
    assert main(["list", "turns", "--json", *base]) == 0
    turns = json.loads(capsys.readouterr().out)
    assert [(t["speaker"], t["text"]) for t in turns] == [("user", "I like tea."), ("assistant", "Noted.")]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT[1:2]), encoding="utf-8")
    assert main(["add", str(path), *base]) == 0
    capsys.readouterr()
    assert main(["list", "turns", *base]) == 0
    out = capsys.readouterr().out
    assert (
        "[4:26 pm on 29 May, 2024 UTC] Maya: Hi! I want to run" in out and '{"channel": "app", "role": "user"}' in out
    )
    for argv, words in (
        (["add", *base], "add needs a FILE or --message TEXT"),
        (["add", str(path), "--message", "x", *base], "add needs a FILE or --message TEXT"),
        (["add", str(path), "--speaker", "Maya", *base], "--speaker applies to --message"),
    ):
        assert main(argv) == 1 and words in capsys.readouterr().err
