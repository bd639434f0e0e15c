"""anchormem with the OpenAI Agents SDK, offline: memory tools, a session that remembers, and recall.

The model is the SDK's own ``OpenAIChatCompletionsModel``, pointed at a scripted stand-in for the
OpenAI API (an in-process ``httpx.MockTransport``), so this runs with no network and no API key.
With a real key, drop ``model=...`` from the agent and the ``scripted_model()`` helper.

    pip install 'anchormem[openai-agents]'
    python examples/openai_agents_memory.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from anchormem import Settings
from anchormem.aio import AsyncMemory
from anchormem.integrations.openai_agents import AnchorMemSession, memory_tools


def scripted_model(*replies: dict[str, Any]) -> OpenAIChatCompletionsModel:
    """A chat-completions endpoint that answers with ``replies`` in turn (stands in for OpenAI)."""
    script = list(replies)

    def answer(request: httpx.Request) -> httpx.Response:
        message = script.pop(0)
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice], "usage": usage}
        return httpx.Response(200, json=body)

    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    client = AsyncOpenAI(api_key="offline", base_url="http://scripted.invalid/v1", http_client=http)
    return OpenAIChatCompletionsModel(model="scripted", openai_client=client)


def call(name: str, **args: str) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": function}],
    }


async def main() -> None:
    set_tracing_disabled(True)  # no trace upload (it would need the network)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(env={}, store=str(Path(tmp) / "memory.db"), embed__backend="hash")
        async with AsyncMemory(settings) as memory:
            # Monday: the user mentions their dog; the session mirrors the chat into long-term memory.
            monday = AnchorMemSession("monday", memory, user_id="maya", names={"user": "Maya", "assistant": "Coach"})
            agent = Agent(
                name="coach",
                instructions="You are Maya's running coach. Search memory before answering about her.",
                model=scripted_model({"role": "assistant", "content": "Great, Pico can join the easy runs!"}),
                tools=memory_tools(memory),
            )
            await Runner.run(agent, "I adopted a dog, his name is Pico.", session=monday, context={"user_id": "maya"})

            # Friday, a new session: the agent searches its memory with the tool ...
            friday = AnchorMemSession("friday", memory, user_id="maya", names={"user": "Maya", "assistant": "Coach"})
            agent.model = scripted_model(
                call("search_memory", query="Maya's dog"), {"role": "assistant", "content": "Pico!"}
            )
            result = await Runner.run(
                agent,
                "What's my dog called again?",
                session=friday,
                context={"user_id": "maya"},
                run_config=RunConfig(call_model_input_filter=friday.recall()),  # ... and recall adds it up front
            )
            items = await friday.get_items()
            tool_output = next(i for i in items if i.get("type") == "function_call_output")
            seen = [
                line for line in str(tool_output["output"]).splitlines() if line.startswith("[")
            ]  # its message lines
            print("tool saw:", seen[0])
            print("answer:", result.final_output)
            for turn in await memory.turns(user_id="maya"):
                print(f"  [{turn.session}] {turn.speaker}: {turn.text}")


if __name__ == "__main__":
    asyncio.run(main())
