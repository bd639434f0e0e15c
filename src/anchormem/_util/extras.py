"""The optional parts of anchormem and the pip extra that installs each.

``pip install anchormem`` is the library and CLI with the offline default (MiniLM on
onnxruntime, SQLite, the offline extractor). The rest is imported only where it is used,
inside :func:`requires_extra`, so that a missing package becomes one clear error naming
the extra to install instead of a ``ModuleNotFoundError`` from deep inside a library.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from anchormem.errors import MissingExtraError

EXTRAS: dict[str, str] = {
    "server": "the REST API and the MCP server (fastapi, uvicorn, mcp)",
    "postgres": "PostgreSQL stores (psycopg, psycopg-pool, pgvector)",
    "eval": "evaluation plots (matplotlib)",
    "torch": "the sentence-transformers runtime of MiniLM (torch, sentence-transformers)",
    "langchain": "the LangChain/LangGraph integration (langchain-core, langgraph)",
    "openai-agents": "the OpenAI Agents SDK integration (openai-agents)",
}


@contextmanager
def requires_extra(extra: str, what: str) -> Iterator[None]:
    """Turn an :class:`ImportError` of a third-party package raised in the block into a
    :class:`MissingExtraError` naming ``extra``; anchormem's own import errors pass through."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}")
    try:
        yield
    except ImportError as exc:
        package = (exc.name or "").split(".")[0] or None
        if package == "anchormem":
            raise
        raise MissingExtraError(extra, what, package) from exc
