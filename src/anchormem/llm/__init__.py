"""LLM access: one small protocol, an OpenAI-compatible client, a response cache,
retries, JSON repair and per-phase accounting."""

from anchormem.llm.accounting import Accounting
from anchormem.llm.cache import CachedLLM
from anchormem.llm.factory import open_llm
from anchormem.llm.fake import FakeLLM
from anchormem.llm.keys import cache_key
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.llm.protocol import LLM, Completion, CompletionParams, Message
from anchormem.llm.structured import UnparsableResponseError, complete_parsed

__all__ = [
    "LLM",
    "Accounting",
    "CachedLLM",
    "Completion",
    "CompletionParams",
    "FakeLLM",
    "Message",
    "OpenAICompatLLM",
    "UnparsableResponseError",
    "cache_key",
    "complete_parsed",
    "open_llm",
]
