"""The built-in parts by name, listed in one place (see :mod:`anchormem.registry` for how a third party adds
its own, by entry point or in code). Nothing here is imported until a name is used, and this module imports
none of the kinds' modules (which import it): each registry's factories have the signature its line says.

- :data:`EMBEDDERS` (``[embed] backend``; group ``anchormem.embedders``): ``build(settings: EmbedSettings,
  cache_dir: Path | None) -> Embedder``.
- :data:`STORES` (the store location's URL scheme, a plain path being ``sqlite``; group ``anchormem.stores``):
  ``open(location: str) -> Store``.
- :data:`LLMS` (``[llm] client``; group ``anchormem.llms``): ``open(settings: LLMSettings) -> LLM`` (the
  response cache wraps what it returns).
- :data:`RERANKERS` (``[retrieval] rerankers``; group ``anchormem.rerankers``): ``make() -> Reranker``, whose
  ``name`` is the name it is listed under.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from anchormem.registry import Registry

EMBEDDERS: Registry[Callable[..., Any]] = Registry(
    "embedding backend",
    "anchormem.embedders",
    {
        "minilm": "anchormem.embed.factory:minilm",
        "minilm-torch": "anchormem.embed.factory:minilm_torch",
        "minilm-onnx": "anchormem.embed.factory:minilm_onnx",
        "openai": "anchormem.embed.factory:openai",
        "hash": "anchormem.embed.factory:hashing",
    },
)
STORES: Registry[Callable[..., Any]] = Registry(
    "store URL scheme",
    "anchormem.stores",
    {
        "sqlite": "anchormem.store.factory:open_sqlite",
        "postgresql": "anchormem.store.factory:open_postgres",
        "postgres": "anchormem.store.factory:open_postgres",
    },
)
LLMS: Registry[Callable[..., Any]] = Registry(
    "LLM client", "anchormem.llms", {"openai": "anchormem.llm.openai_compat:OpenAICompatLLM"}
)
RERANKERS: Registry[Callable[..., Any]] = Registry(
    "rerank stage",
    "anchormem.rerankers",
    {
        "own-words": "anchormem.search.rerank.own_words:OwnWords",
        "recency": "anchormem.search.rerank.recency:Recency",
        "tense": "anchormem.search.rerank.tense:Tense",
        "before-change": "anchormem.search.rerank.earlier:BeforeChange",
        "statements": "anchormem.search.rerank.statements:StatementsFirst",
    },
)
