"""Build the LLM the settings describe: an OpenAI-compatible client behind the response cache."""

from __future__ import annotations

from pathlib import Path

from anchormem.config import LLMSettings
from anchormem.llm.cache import CachedLLM
from anchormem.llm.protocol import LLM
from anchormem.registries import LLMS


def open_llm(settings: LLMSettings, cache_path: Path | None = None) -> LLM:
    """The client ``settings.client`` names (:data:`anchormem.registries.LLMS`; built in: ``openai``, an
    :class:`~anchormem.llm.openai_compat.OpenAICompatLLM`) for ``settings``, cached in ``cache_path`` when given.

    Opens no connection: a dead endpoint shows on the first call, as
    :class:`~anchormem.errors.LLMUnavailableError`.
    """
    client = LLMS.named(settings.client)(settings)
    if cache_path is None:
        return client
    return CachedLLM(client, cache_path)
