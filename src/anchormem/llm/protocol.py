"""The protocol every LLM backend implements: messages in, text + token usage out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    cached: bool = False
    seconds: float = 0.0


@dataclass(frozen=True)
class CompletionParams:
    temperature: float = 0.0
    max_tokens: int = 1024
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}


@runtime_checkable
class LLM(Protocol):
    """A chat-completion backend.

    Implementations raise :class:`anchormem.errors.LLMUnavailableError` when the
    endpoint cannot be reached or keeps failing, and never return partial garbage
    silently.
    """

    @property
    def model(self) -> str: ...

    def complete(self, messages: list[Message], params: CompletionParams | None = None) -> Completion: ...
