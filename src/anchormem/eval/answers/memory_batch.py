"""The answers benchmark on the LLM path: each chat's memory built with facts and events a model wrote, its
requests answered through batch files (docs/batch.md), so a model this machine cannot reach can be measured.

``anchormem eval proxy|answers ... --memory-batch MODEL --memory-dir DIR`` first builds every chat's memory in a
scratch store with ``add(..., batch=True)``, after importing the results files given (``--memory-results``).
While a request waits for its answer, the run stops there and writes the waiting requests to
``DIR/memory-round-N.jsonl``: answer them, pass the results file, run again (round 1: the facts; round 2: the
events). Once nothing waits, the blocks are built from memories whose every fact and event is the model's, the
same as a live add with those answers would build them. The requests and answers stay in ``DIR`` (a batch
store and a response cache), so later runs on the same chats need no file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from anchormem.config import LLMSettings, Settings
from anchormem.eval.answers.chats import Chat
from anchormem.memory import Memory

__all__ = ["MemoryBatch", "memory_users"]

NEVER_CALLED = "http://127.0.0.1:9/v1"  # a batch add never calls its endpoint: its requests wait for files


@dataclass(frozen=True)
class MemoryBatch:
    """Memories built by ``model`` through batch files kept in ``dir``; ``results``: batch output files to
    import first."""

    model: str
    dir: Path
    results: tuple[Path, ...] = ()

    def settings(self, base: Settings) -> Settings:
        """``base`` with this model as the LLM (never called) and the response cache, and with it the batch
        store, in ``dir``."""
        llm = LLMSettings(base_url=NEVER_CALLED, model=self.model, max_retries=0)
        return replace(base, llm=llm, cache=str(self.dir / "memory-llm-cache.db"))

    def prepare(self, chats: Sequence[Chat], spellings: Sequence[str], base: Settings) -> str | None:
        """Import the results files, then build every chat's memory in a scratch store: None when every
        request has its answer, else what to do next (the waiting requests are written to a new file)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        notes: list[str] = []
        with Memory(replace(self.settings(base), store=str(self.dir / "memory-scratch.db"))) as memory:
            for path in self.results:
                done = memory.batch_import(path)
                notes.append(done.results.describe())
            for chat in chats:
                for speakers, user in memory_users(chat, spellings):
                    memory.add(chat.to_memory(speakers), user_id=user, batch=True)
            n = 1 + sum(1 for _ in self.dir.glob("memory-round-*.jsonl"))
            written = memory.batch_export(self.dir / f"memory-round-{n}.jsonl")
        if not written:
            return None
        count = sum(1 for p in written for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
        notes.append(
            f"{count} memory requests to {self.model} wait for their answers: {', '.join(map(str, written))}. "
            "Answer them (OpenAI Batch API results format), then run again with --memory-results FILE "
            "(every results file so far, or just the new one)."
        )
        return "\n".join(notes)


def memory_users(chat: Chat, spellings: Sequence[str]) -> list[tuple[str, str]]:
    """(speakers, user id) of each memory the blocks of ``spellings`` read for ``chat`` (as
    :func:`anchormem.eval.answers.tasks.iter_blocks` builds them)."""
    out: dict[str, str] = {}
    for spelling in spellings:
        speakers = "named" if spelling == "named" or not chat.role_based else "roles"
        out.setdefault(speakers, f"{chat.sample_id}~{speakers}")
    return list(out.items())
