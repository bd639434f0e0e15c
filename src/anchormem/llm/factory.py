"""Build the LLM the settings describe: an OpenAI-compatible client behind the response cache."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import LLMSettings
from anchormem.llm.cache import CachedLLM
from anchormem.llm.openai_compat import OpenAICompatLLM
from anchormem.llm.protocol import LLM


def open_llm(settings: LLMSettings, cache_path: Path | None = None) -> LLM:
    """An :class:`OpenAICompatLLM` for ``settings``, cached in ``cache_path`` when given.

    Opens no connection: a dead endpoint shows on the first call, as
    :class:`~anchormem.errors.LLMUnavailableError`.
    """
    client = OpenAICompatLLM(settings)
    if cache_path is None:
        return client
    return CachedLLM(client, cache_path)
