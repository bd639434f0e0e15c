"""An OpenAI-compatible chat endpoint that answers from a script, in-process (``httpx.MockTransport``):
the Agents SDK's real model class talks to it as to the real service, with no network."""

from __future__ import annotations

import json
from typing import Any

import httpx


def tool_call(name: str, call_id: str = "call_1", **args: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}],
    }


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


class ScriptedChat:
    """Answers each chat-completion request with the next message of ``script``; keeps the requests."""

    def __init__(self, *script: dict[str, Any]) -> None:
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        message = self.script.pop(0)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": "scripted",
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )

    def model(self) -> Any:
        from agents import OpenAIChatCompletionsModel
        from openai import AsyncOpenAI

        client = AsyncOpenAI(
            api_key="offline",
            base_url="http://scripted.invalid/v1",
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(self)),
        )
        return OpenAIChatCompletionsModel(model="scripted", openai_client=client)
