"""The MCP tools take the same strict arguments as every other shell: booleans that are booleans, times that
are times; and a search whose matches do not fit ``max_chars`` says the budget is too small, not that
nothing matched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

from anchormem.memory import Memory
from anchormem.server.mcp import build_server
from tests.fixtures import SESSION_1, messages


def _call(memory: Memory, tool: str, args: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(build_server(memory, user_id="ana")) as client:
            return await client.call_tool(tool, args)

    return asyncio.run(run())


def test_a_budget_too_small_for_any_match_says_so(memory: Memory) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    result = _call(memory, "search_memory", {"query": "Pico the dog", "max_chars": 1})
    assert not result.is_error
    text = result.content[0].text
    assert "max_chars=1 is too small" in text and "No memories match" not in text
    assert result.structured_content["contexts"]  # the matches are still listed


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_memory", {"query": "dog", "include_subscopes": "false"}),
        ("search_memory", {"query": "dog", "include_subscopes": 0}),
        ("search_memory", {"query": "dog", "since": True}),
        ("delete_memory", {"all": "false"}),
        ("delete_memory", {"all": "no"}),
        ("delete_memory", {"all": 0}),
    ],
)
def test_booleans_and_times_of_the_wrong_type_are_refused(memory: Memory, tool: str, args: dict[str, Any]) -> None:
    memory.add(messages(SESSION_1, "1"), user_id="ana")
    result = _call(memory, tool, args)
    assert result.is_error and "invalid_input" in result.content[0].text
    assert len(memory.turns(user_id="ana")) == len(SESSION_1)
