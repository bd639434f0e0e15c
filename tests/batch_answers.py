"""Answer a batch input file as the OpenAI Batch API would, with recorded replies: the results file a
helper (or the Batch API) returns, line by line, with each answer's token usage."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from anchormem.llm.protocol import Message

Reply = Callable[[list[Message]], str]
USAGE = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}  # as the fake server reports


def requests(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def result_line(custom_id: str, model: str, text: str) -> str:
    body = {
        "id": "chatcmpl-batch",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": USAGE,
    }
    record = {
        "id": f"batch_req_{custom_id[:8]}",
        "custom_id": custom_id,
        "response": {"status_code": 200, "body": body},
    }
    return json.dumps({**record, "error": None}, ensure_ascii=False)


def answer(path: Path, out: Path, reply: Reply, skip: Collection[int] = ()) -> list[str]:
    """Write ``out``: the answer ``reply`` gives to each request of ``path`` (those at the 0-based indexes
    of ``skip`` left out), in reverse order (a batch answers in any order). Returns the lines written."""
    lines = [
        result_line(r["custom_id"], r["body"]["model"], reply(r["body"]["messages"]))
        for i, r in enumerate(requests(path))
        if i not in skip
    ]
    lines.reverse()
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines
